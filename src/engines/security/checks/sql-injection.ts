/** API8:2023 / injection: SQL error signatures per DBMS, compared against a baseline of the same operation. */
import type { CheckDefinition, CheckResult } from '../types.js';
import { buildRequest, describePoint, inject, injectionPoints } from '../synth.js';

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

export const sqlInjection: CheckDefinition = {
  id: 'sql-injection',
  title: 'SQL injection',
  owasp: 'API8:2023',
  cwe: 'CWE-89',
  scope: 'operation',
  applies: (op) => injectionPoints(op).length > 0,
  async run(scan, op) {
    const baseline = await scan.send(buildRequest(op!));
    const baseSig = sqlSignature(baseline.body);
    const out: CheckResult[] = [];
    for (const point of injectionPoints(op!)) {
      let found: CheckResult | undefined;
      for (const payload of [`${point.value}'`, `${point.value}"`, `${point.value}')`]) {
        const res = await scan.send(buildRequest(op!, inject(op!, point, payload)));
        const sig = sqlSignature(res.body);
        if (sig && sig !== baseSig) {
          found = {
            status: 'failed',
            name: `SQL injection (error-based) in ${describePoint(point)}`,
            severity: 'critical',
            parameter: point.name,
            evidence: scan.evidence(res, `Database error after a quote was added (baseline had none): ${sig}`),
          };
          break;
        }
      }
      out.push(found ?? { status: 'passed', name: `SQL injection (error-based) in ${describePoint(point)}`, severity: 'info', parameter: point.name });
    }
    return out;
  },
};
