// `idforge sql` on MariaDB (IDFORGE_MYSQL_URL, default mysql://root@127.0.0.1:3306/test): the
// in-database suite (suite.ts) in a database of its own, dropped at the end.
import { mariadbEngine, mariadbSkip } from './mariadb-engine.js';
import { engineSuite } from './suite.js';

engineSuite(mariadbEngine('suite'), await mariadbSkip());
