/**
 * The report as one self-contained HTML page: its styles inline, no script, no font, no image, and a
 * Content-Security-Policy that forbids the page any request, so that it opens anywhere, offline, and
 * shows exactly what the probe or the lint saw. Every value from the server or the document is escaped.
 */
import { countBySeverity, type Finding, type Report, type RuleSummary } from '../findings.js';
import { ruleOf } from '../rules.js';

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const STYLE = `
:root { color-scheme: light; --fail: #b42318; --warn: #b54708; --info: #175cd3; --pass: #067647; --muted: #5d6b7e; --line: #e4e7ec; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #101828; background: #f8f9fb; }
header { padding: 28px 40px 20px; background: #fff; border-bottom: 1px solid var(--line); }
h1 { margin: 0 0 4px; font-size: 22px; }
h1 code { font-size: 20px; }
.notes { margin: 6px 0 0; padding: 0; list-style: none; color: var(--muted); font-size: 14px; }
.counts { display: flex; gap: 12px; margin-top: 16px; }
.count { padding: 8px 14px; border-radius: 8px; background: #f2f4f7; font-weight: 600; }
.count.error { color: var(--fail); background: #fef3f2; }
.count.warn { color: var(--warn); background: #fffaeb; }
.count.info { color: var(--info); background: #eff8ff; }
.count.clean { color: var(--pass); background: #ecfdf3; }
main { padding: 24px 40px 48px; max-width: 1200px; }
h2 { font-size: 17px; margin: 28px 0 10px; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
th, td { text-align: left; padding: 8px 12px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f2f4f7; font-size: 13px; color: var(--muted); font-weight: 600; }
tr:last-child td { border-bottom: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 700; text-transform: uppercase; }
.badge.error { color: #fff; background: var(--fail); }
.badge.warn { color: #fff; background: var(--warn); }
.badge.info { color: #fff; background: var(--info); }
.badge.pass { color: #fff; background: var(--pass); }
.badge.skip { color: #344054; background: #eaecf0; }
section.rule { margin-top: 28px; }
section.rule p { margin: 4px 0 10px; color: var(--muted); }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; }
pre { margin: 6px 0 0; padding: 8px 10px; background: #101828; color: #f2f4f7; border-radius: 6px; white-space: pre-wrap; word-break: break-all; max-height: 160px; overflow: auto; }
.skipped { color: var(--muted); font-size: 14px; margin: 6px 0 0; }
`;

function outcome(summary: RuleSummary, findings: readonly Finding[]): string {
  if (summary.failed > 0) {
    const severity = findings.find((finding) => finding.rule === summary.rule)?.severity ?? 'error';
    return `<span class="badge ${severity}">${severity === 'warn' ? 'warning' : severity}</span>`;
  }
  if (summary.checked === 0) return '<span class="badge skip">not run</span>';
  return '<span class="badge pass">pass</span>';
}

function place(finding: Finding): string {
  if (finding.request !== undefined) return `<code>${escape(`${finding.request.method} ${finding.request.url}`)}</code>`;
  const line = finding.line === undefined ? '' : `line ${finding.line}<br>`;
  return `${line}<code>${escape(finding.pointer ?? '')}</code>`;
}

function answer(finding: Finding): string {
  if (finding.answer === undefined) return '';
  const type = finding.answer.contentType === undefined ? '' : ` <code>${escape(finding.answer.contentType)}</code>`;
  const excerpt = finding.answer.excerpt === undefined || finding.answer.excerpt === '' ? '' : `<pre>${escape(finding.answer.excerpt)}</pre>`;
  return `<strong>${finding.answer.status}</strong>${type}${excerpt}`;
}

function ruleSection(summary: RuleSummary, findings: readonly Finding[], report: Report): string {
  const rule = ruleOf(summary.rule);
  const own = findings.filter((finding) => finding.rule === summary.rule);
  if (own.length === 0 && summary.notRun.length === 0) return '';
  const rows = own
    .map((finding) => `<tr><td><span class="badge ${finding.severity}">${finding.severity === 'warn' ? 'warning' : finding.severity}</span></td><td>${place(finding)}</td>${report.command === 'probe' ? `<td>${answer(finding)}</td>` : ''}<td>${escape(finding.message)}</td></tr>`)
    .join('\n');
  const table =
    own.length === 0
      ? ''
      : `<table><thead><tr><th>severity</th><th>${report.command === 'probe' ? 'request' : 'where'}</th>${report.command === 'probe' ? '<th>answer</th>' : ''}<th>finding</th></tr></thead><tbody>${rows}</tbody></table>`;
  const skipped = summary.notRun.map((reason) => `<p class="skipped">Not run: ${escape(reason)}</p>`).join('');
  return `<section class="rule" id="${escape(summary.rule)}"><h2><code>${escape(summary.rule)}</code> · ${escape(rule?.title ?? '')}</h2><p>${escape(rule?.[report.command] ?? '')} <em>(${escape(rule?.convention ?? '')})</em></p>${table}${skipped}</section>`;
}

/**
 * The report as a self-contained HTML page.
 *
 * @example
 * writeFileSync('probe.html', htmlReport(report));
 */
export function htmlReport(report: Report): string {
  const counts = countBySeverity(report.findings);
  const badges =
    report.findings.length === 0
      ? '<span class="count clean">No findings</span>'
      : `<span class="count error">${counts.error} errors</span><span class="count warn">${counts.warn} warnings</span><span class="count info">${counts.info} info</span>`;
  const summaryRows = report.rules
    .map((summary) => `<tr><td><a href="#${escape(summary.rule)}"><code>${escape(summary.rule)}</code></a></td><td>${escape(ruleOf(summary.rule)?.title ?? '')}</td><td class="num">${summary.checked}</td><td class="num">${summary.failed}</td><td>${outcome(summary, report.findings)}</td></tr>`)
    .join('\n');
  const title = `restcanon ${report.command} · ${report.target}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<link rel="icon" href="data:,">
<title>${escape(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>restcanon ${escape(report.command)} <code>${escape(report.target)}</code></h1>
<ul class="notes">${report.notes.map((note) => `<li>${escape(note)}</li>`).join('')}</ul>
<div class="counts">${badges}</div>
</header>
<main>
<h2>Rules</h2>
<table><thead><tr><th>rule</th><th>what it asks for</th><th>checked</th><th>failed</th><th>result</th></tr></thead><tbody>
${summaryRows}
</tbody></table>
${report.rules.map((summary) => ruleSection(summary, report.findings, report)).join('\n')}
</main>
</body>
</html>
`;
}
