// Probes which code points the reference's normalizers (unicode-normalization-alignments, an
// older Unicode than Go's tables) do not know, for normalize_tables.go.
// Input (from ./normlist): lines "codepoint ccc decomposes(NFD) decomposes(NFKD)" for every code point with a
// non-zero canonical combining class or a decomposition in golang.org/x/text/unicode/norm.
// usage: node normprobe.js LIST > unknown.json
const fs = require('fs');
const path = require('path');
const root = path.join(__dirname, '..', '..', '..', '..');
const { Tokenizer } = require(path.join(root, '.cache', 'tokref', 'node_modules', 'tokenizers'));
const qwen = JSON.parse(fs.readFileSync(path.join(root, '.cache', 'tokenizers', 'qwen3', 'tokenizer.json'), 'utf8'));
const withNorm = (type) => { qwen.normalizer = { type }; return Tokenizer.fromString(JSON.stringify(qwen)).getNormalizer(); };
const nfc = withNorm('NFC'), nfd = withNorm('NFD'), nfkd = withNorm('NFKD');
const list = fs.readFileSync(process.argv[2], 'utf8').trim().split('\n').map((l) => l.split(' '));
const unknown = [];
for (const [cpS, cccS, d, kd] of list) {
  const cp = Number(cpS), ccc = Number(cccS), c = String.fromCodePoint(cp);
  let known;
  if (d === 'true') known = nfd.normalizeString(c) !== c;
  else if (kd === 'true') known = nfkd.normalizeString(c) !== c;
  else if (ccc > 10) known = nfc.normalizeString('x' + c + '\u05B0') === 'x\u05B0' + c;
  else known = nfc.normalizeString('x\u0301' + c) === 'x' + c + '\u0301';
  if (!known) unknown.push(cp);
}
console.log(JSON.stringify(unknown));
console.error(unknown.length, unknown.map((x) => x.toString(16)).join(' '));
