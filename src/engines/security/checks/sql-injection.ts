/** SQL injection (error-based): a quote added to each value, answers compared with the baseline for DBMS error signatures. */
import { payloadCheck } from './payload-check.js';

export const SQL_ERRORS: [string, RegExp][] = [
  ['MySQL', /You have an error in your SQL syntax|mysql_fetch|MySqlException|com\.mysql\.jdbc/i],
  ['PostgreSQL', /PG::SyntaxError|org\.postgresql|syntax error at or near|unterminated quoted string at or near|PSQLException/i],
  ['SQLite', /SQLITE_ERROR|sqlite3\.OperationalError|SQLiteException|unrecognized token:|near ".*": syntax error/i],
  ['MSSQL', /Unclosed quotation mark after the character string|Microsoft OLE DB|SqlException|ODBC SQL Server Driver/i],
  ['Oracle', /ORA-0\d{4}|Oracle error|quoted string not properly terminated/i],
];

export function sqlSignature(body: string): string | undefined {
  for (const [db, re] of SQL_ERRORS) {
    const m = re.exec(body);
    if (m) return `${db}: ${m[0]}`;
  }
  return undefined;
}

export const sqlInjection = payloadCheck({
  id: 'sql-injection',
  title: 'SQL injection',
  description:
    'Appends a single quote, a double quote and a quote with a closing parenthesis to each parameter and body field, and looks for database error messages (MySQL, PostgreSQL, SQLite, MSSQL, Oracle) that the normal request does not produce.',
  risk: 'Input reaches an SQL statement as code: an attacker can read, change or delete any data the database account can reach, bypass authentication, and sometimes run commands on the database host.',
  remediation:
    'Use parameterised queries or prepared statements (or an ORM’s bound parameters) for every value, never string concatenation; allow-list identifiers such as sort columns; run the application with a least-privileged database account and do not return database errors to clients.',
  owasp: 'API8:2023',
  cwe: 'CWE-89',
  references: [
    { title: 'OWASP SQL Injection Prevention Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/SQL_Injection_Prevention_Cheat_Sheet.html' },
    { title: 'OWASP Query Parameterization Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Query_Parameterization_Cheat_Sheet.html' },
  ],
  severity: 'critical',
  label: 'SQL injection (error-based) in',
  nothingToTest: 'no parameter or body field to inject into',
  payloads: (_point, v) => [`${v}'`, `${v}"`, `${v}')`],
  judge: (res, base) => {
    const sig = sqlSignature(res.body);
    return sig && sig !== sqlSignature(base.body) ? `Database error after a quote was added (baseline had none): ${sig}` : undefined;
  },
});
