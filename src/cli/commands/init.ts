/** `vigil init`: writes a commented vigil.config.yaml (every scan option, secrets as env:NAME). */
import { existsSync, writeFileSync } from 'node:fs';
import { parseCommandArgs } from '../usage-error.js';

export const INIT_HELP = `Usage: vigil init [--force] [--file <name>]

Writes a commented vigil.config.yaml in the current directory: every vigil scan option, secrets as
env:NAME references. Refuses to overwrite an existing file without --force.

Examples:
  vigil init
  vigil init --file ci/vigil.config.yaml && vigil scan --config ci/vigil.config.yaml`;

export const CONFIG_TEMPLATE = `# Vigil project configuration: read by "vigil scan" and "vigil scans wait" from the working directory
# (or --config <file>). Command-line flags override these keys. Schema: docs/vigil.config.schema.json
# Secrets are never written here: use env:NAME and set NAME in the environment (a CI secret).
$schema: https://vigil.dev/schemas/vigil.config.schema.json

# Vigil server and API key (also VIGIL_URL / VIGIL_API_KEY; flags --url / --api-key win).
url: http://127.0.0.1:8080
api_key: env:VIGIL_API_KEY

# What to scan: the target base URL and, for security scans, the OpenAPI document (URL or file in the repo).
target: https://staging.example.com
mode: security            # security | functional | full
spec: openapi.yaml

# The identity the scan uses, and a second ordinary user for the BOLA/BFLA checks.
auth:
  type: bearer            # bearer | header | basic | oauth2 | login | none
  token: env:ALICE_TOKEN
# auth2:                  # an identity that logs in itself (logged in again when its session ends)
#   type: login
#   username: bob
#   password: env:BOB_PASSWORD
#   login:
#     url: /api/auth/login/     # or operation: <operationId>
#     token_pointer: /token     # or token_cookie: sessionid (a cookie session)
#     send_scheme: Token        # Authorization: Token <token> (default Bearer)

# safe_mode: true         # skip destructive or global operations (reset, seed, purge, DELETE on a collection)
# concurrency: 5
# timeout: 30             # seconds per request / page
excludes:
  - /admin
# Functional scans:
# pages: [/, /cart, /checkout]
# max_pages: 20
# masks: [".ad-banner", "#clock"]
# viewport: 1280x720
# device: desktop         # desktop | mobile
# throttling: simulate    # simulate | devtools | none
# a11y_profile: wcag21aa  # wcag21aa | wcag22aa | section508

# The gate: what fails the build (exit 1).
thresholds:
  fail_on: high           # critical | high | medium | low | info | none
  fail_on_a11y: serious   # minor | moderate | serious | critical | none
  fail_on_visual: true    # a visual diff above its threshold fails
  # diff_percent: 0.5     # visual diff threshold, percent of pixels

# Performance budgets (Lighthouse CI style): max for timings (ms) and cls, min for scores (0-100).
budgets:
  - { metric: lcp, max: 2500 }
  - { metric: performance, min: 90, level: warn }
  # - { metric: tbt, max: 300, page: "/checkout*" }

# Accepted findings: never fail the gate, listed apart. A reason is required; after "until" they fail again.
# (also in .vigil/ignore.yml)
suppressions: []
#  - check: bola
#    operation: GET /users/{id}
#    reason: "Public profiles by design (SEC-142)"
#    until: 2026-12-31

# Reports written after every run; the format comes from the extension.
outputs:
  - vigil.sarif
  - vigil-junit.xml
  - vigil-report.html

# notifications:
#   - { kind: slack, url: env:SLACK_WEBHOOK_URL }
#   - { kind: webhook, url: https://hooks.example.com/vigil, secret: env:VIGIL_WEBHOOK_SECRET }

# Named option sets: vigil scan --profile nightly
profiles:
  nightly:
    mode: full
    thresholds: { fail_on: medium }
  pr:
    new_only: true        # fail only on findings the previous scan of the target did not have
`;

export async function initCommand(args: string[]): Promise<number> {
  const { values: v } = parseCommandArgs(args, { force: { type: 'boolean' }, file: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (v.help) {
    process.stdout.write(`${INIT_HELP}\n`);
    return 0;
  }
  const file = v.file ?? 'vigil.config.yaml';
  if (existsSync(file) && !v.force) {
    process.stderr.write(`vigil: ${file} already exists (--force overwrites it)\n`);
    return 3;
  }
  writeFileSync(file, CONFIG_TEMPLATE);
  process.stdout.write(`wrote ${file}: edit target, spec and auth, then run "vigil scan"\n`);
  return 0;
}
