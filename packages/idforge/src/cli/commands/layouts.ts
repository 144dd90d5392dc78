import { LAYOUTS, type Layout, layoutYearsLeft } from '../../core/index.js';
import { noArgs, type Options, type OptionValues } from '../args.js';
import type { Command } from '../host.js';
import { type CliIo, formatTable } from '../io.js';

export const layoutsHelp = `Usage: idforge layouts [--json]

Lists the Snowflake layout presets: bit widths (most significant first), epoch, tick,
the date IDs run out (and, for layouts that use all 64 bits, the date they turn negative
in a signed BIGINT), the most IDs per second one node can issue, and how many nodes fit.

Options:
  --json    one JSON array of layouts instead of a table
`;

const layoutsOptions = { json: { type: 'boolean' } } as const satisfies Options;

export type LayoutsValues = OptionValues<typeof layoutsOptions>;

/** `idforge layouts`: the presets as of now. */
export const layoutsCli: Command<typeof layoutsOptions> = {
  summary: ['layouts', 'list the Snowflake layouts with their horizons and rate caps'],
  help: layoutsHelp,
  options: layoutsOptions,
  run: (positionals, values, io) => {
    noArgs(positionals);
    return layoutsCommand(values, io, Date.now());
  },
};

function day(ms: number | undefined): string {
  return ms === undefined ? '-' : new Date(ms).toISOString().slice(0, 10);
}

function bits(layout: Layout): string {
  const parts = layout.fields.map((f) => `${f.name}:${f.bits}`);
  return (layout.signBit ? ['sign:1', ...parts] : parts).join(' ');
}

function summary(layout: Layout, nowMs: number) {
  return {
    name: layout.name,
    bits: layout.fields.map((f) => ({ name: f.name, bits: f.bits, role: f.role })),
    signBit: layout.signBit,
    totalBits: layout.totalBits,
    epoch: new Date(layout.epochMs).toISOString(),
    epochMs: layout.epochMs,
    unitMs: layout.unitMs,
    horizon: new Date(layout.horizonMs).toISOString(),
    horizonMs: layout.horizonMs,
    negative: layout.negativeMs === undefined ? null : new Date(layout.negativeMs).toISOString(),
    expired: nowMs >= layout.horizonMs,
    yearsLeft: Math.round(layoutYearsLeft(layout, nowMs) * 10) / 10,
    maxIdsPerSecondPerNode: layout.maxIdsPerSecondPerNode,
    maxNodes: layout.maxNodes,
    source: layout.source,
  };
}

/** `idforge layouts [--json]` */
export function layoutsCommand(values: LayoutsValues, io: CliIo, nowMs: number): number {
  const all = Object.values(LAYOUTS);
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify(
        all.map((l) => summary(l, nowMs)),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const head = [
    'layout',
    'bits (msb first)',
    'epoch',
    'tick',
    'runs out',
    'negative',
    'ids/s/node',
    'nodes',
  ];
  const rows = all.map((l) => {
    const expired = nowMs >= l.horizonMs;
    return [
      l.name,
      bits(l),
      day(l.epochMs),
      l.unitMs === 1 ? '1 ms' : l.unitMs >= 1000 ? `${l.unitMs / 1000} s` : `${l.unitMs} ms`,
      `${day(l.horizonMs)}${expired ? ' EXPIRED' : ''}`,
      day(l.negativeMs),
      l.maxIdsPerSecondPerNode.toLocaleString('en-US'),
      l.maxNodes.toLocaleString('en-US'),
    ];
  });
  io.stdout.write(`${formatTable(head, rows)}\n`);
  return 0;
}
