/** The help of `vigil scan` and `vigil scans wait` (docs/cli.md has every flag). */
import { CONNECTION_HELP } from '../common.js';

const GATE_HELP = `Gate (what fails the build; exit 1):
  --fail-on <critical|high|medium|low|info|none>   Security findings at or above (default high; none: never)
  --fail-on-a11y <minor|moderate|serious|critical|none>  Accessibility violations at or above (default serious)
  --fail-on-visual <on|off>           A visual diff above its threshold (default on)
  --fail-on-coverage <percent>        Security: fail when fewer than <percent>% of the operations answered 2xx (default off)
  --budget '<[page@]metric<op>value[:warn]>'  Repeatable; quote it (> < * are shell characters):
                                      --budget lcp=2500 --budget 'performance>=90:warn' --budget '/cart*@tbt<=300'
                                      metrics fcp lcp tbt cls si ttfb tti fid (upper limits), scores performance
                                      accessibility (lower limits); level error (default, fails) or warn
  --ignore-file <file>                Suppressions (default .vigil/ignore.yml): reason required, optional until
  --new-only                          Fail only on findings not in the previous completed scan of the same target
  --baseline <scan_id|results.json>   Fail only on findings not in that scan (or saved results / --json output)
  A page that could not be loaded always fails the gate; a scan that did not complete is exit 2.`;

const FOLLOW_HELP = `Following:
  --poll-interval <seconds>           Default 5
  --reconnect-timeout <seconds>       Keep retrying a lost server this long (backoff 1 s to 30 s; default 300)
  --no-color                          No colours (also NO_COLOR; colours only on a terminal or with FORCE_COLOR)`;

const OUTPUT_HELP = `Output:
  --output <file>                     Repeatable; format from the extension (.html .json .csv .sarif .xml/.junit)
  --format <html|json|csv|sarif|junit>  Override the format (with a single --output)
  --notify <slack|teams|webhook>=<url>  Repeatable; sent by the CLI when the scan ends
  --notify-header <Name: value>       Header for webhook channels (repeatable)
  --notify-secret <secret>            HMAC key for X-Vigil-Signature on webhook channels
  --notify-timeout <seconds>          Default 10`;

const CONFIG_HELP = `Config:
  --config <file>                     Project config (default vigil.config.json / vigil.config.yaml in the cwd);
                                      flags override it; "vigil init" writes one
  --profile <name>                    A named option set of the config file's "profiles"`;

export const SCAN_HELP = `Usage: vigil scan [url] [options]

Starts a scan (the URL, or "target" in the config file), follows it until it finishes, judges it and exits with:
  0 passed   1 the gate failed (see Gate)   2 scan failed or cancelled, or the server was lost
  3 usage or configuration error   4 refused by the server (401/402/403, or still limited after waiting)
  5 a report (--output) could not be written

Scan:
  --mode <security|functional|full>   Default security
  --spec <url|file>                   OpenAPI/Swagger spec: a URL, or a local file (uploaded)
  --auth-type <bearer|header|basic|oauth2|login|none>   First identity (inferred from the flags below when absent)
  --token <t>  --header-name <n> --header-value <v>  --username <u> --password <p>
  --oauth2-token-url <url> --oauth2-client-id <id> --oauth2-client-secret <s> --oauth2-scope <scope>
  --oauth2-grant-type <client_credentials|password>  password: with --username/--password (refresh tokens used)
  An identity that logs in (login): --username <u> --password <p> and
    --login-url <url|/path> [--login-method POST] | --login-operation <operationId|"METHOD /path">
    --login-format <json|form>  --login-username-field <f> (e.g. email)  --login-password-field <f>
    --login-token-pointer </json/pointer> | --login-token-header <h> | --login-token-cookie <name>
    --login-send-header <h> (default Authorization)  --login-send-scheme <s> (default Bearer; e.g. Token, JWT)
    --login-csrf-url <url|/path>  --login-csrf-cookie <name> | --login-csrf-pointer </ptr>  --login-csrf-header <h>
  --auth2-type <bearer|header|basic|oauth2|login>  Second identity (another ordinary user), for BOLA/BFLA checks;
  --auth2-token <t>  --auth2-header-name <n> --auth2-header-value <v>  --auth2-username <u> --auth2-password <p>
  --auth2-oauth2-token-url <url> --auth2-oauth2-client-id <id> --auth2-oauth2-client-secret <s> --auth2-oauth2-scope <scope>
  --auth2-oauth2-grant-type <g>  --auth2-login-url ... (every --login-* flag, prefixed auth2-)
  --safe-mode                         Security: skip destructive or global operations (reset, seed, purge, DELETE on a collection)
  --concurrency <n>  --timeout <seconds>
  --exclude <pattern>                 Repeatable
  --reset-baseline                    Functional: replace the visual baseline
  --pages <url,...>  --max-pages <n>  --diff-threshold <percent>  --viewport <WxH>
  --mask <selector>  (repeatable)  --device <desktop|mobile>  --a11y-profile <wcag21aa|wcag22aa|section508>
  --throttling <simulate|devtools|none>  Functional: how performance is throttled (default simulate, as Lighthouse)
  --branch <name>  --commit <sha>  --pr <number>   What the run scans (CI metadata: results, reports and the
                                      dashboard group scans by branch); read from GitHub Actions and GitLab CI when
                                      absent (docs/ci.md); flags win over the environment
  --no-ci                             Do not read CI metadata from the environment
  --queue-wait <seconds>              Wait this long for a free slot (CONCURRENT_LIMIT) or the rate limit (default 600)
  --no-wait                           Print the scan id and exit 0 without following it (see vigil scans wait)
${GATE_HELP}
${FOLLOW_HELP}
${OUTPUT_HELP}
${CONFIG_HELP}
${CONNECTION_HELP}

Examples:
  vigil scan https://api.example.com --spec openapi.yaml --output vigil.sarif --output junit.xml --output report.html
  vigil scan https://shop.example.com --mode functional --pages /,/cart --budget lcp=2500 --budget 'performance>=90:warn'
  vigil scan --profile nightly                      # everything from vigil.config.yaml
  vigil scan https://api.example.com --spec openapi.yaml --new-only --fail-on medium
  VIGIL_API_KEY=svc_pk_... vigil scan https://api.example.com --spec https://api.example.com/openapi.json --json`;

export const WAIT_HELP = `Usage: vigil scans wait <scan_id> [options]

Follows a scan started earlier (vigil scan --no-wait, the dashboard, the API) until it ends, then judges,
reports and exits exactly like vigil scan (0 passed, 1 gate, 2 failed/cancelled, 3 usage, 4 refused, 5 output).
  --spec <file>                       The local OpenAPI file the scan used: SARIF results point at its lines
${GATE_HELP}
${FOLLOW_HELP}
${OUTPUT_HELP}
${CONFIG_HELP}
${CONNECTION_HELP}

Examples:
  id=$(vigil scan https://api.example.com --spec openapi.yaml --no-wait)
  vigil scans wait "$id" --output vigil.sarif`;
