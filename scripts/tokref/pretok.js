// Reference pre-tokenization, to debug pre-tokenizer regexes against the Rust crate (Oniguruma).
// usage: node scripts/tokref/pretok.js TOKENIZER.json < corpus.jsonl > pretok.jsonl
//   input lines: {"text": "..."} or a JSON string; output: one JSON array of pre-token strings
//   per line: the tokenizer's pre_tokenizer applied to its normalizer's output (as the strings
//   come out of it, so byte-level ones are in the ByteLevel alphabet). Added tokens are NOT split
//   out first (encode does that), so compare this with your own pre-tokenizer, not with encode.
//   Without a pre_tokenizer the array holds the one normalized string.
process.env.RAYON_NUM_THREADS = process.env.RAYON_NUM_THREADS || '1';
const fs = require('fs');
const path = require('path');
const tokrefDir = process.env.TOKREF_DIR || path.join(__dirname, '..', '..', '.cache', 'tokref');
const { Tokenizer } = require(path.join(tokrefDir, 'node_modules', 'tokenizers'));
const tokPath = process.argv[2];
if (!tokPath) { console.error('usage: node pretok.js TOKENIZER.json < corpus.jsonl'); process.exit(2); }
const tok = Tokenizer.fromFile(tokPath);
const norm = tok.getNormalizer();
const pre = tok.getPreTokenizer();
const lines = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l.length);
const out = lines.map((l) => {
  const v = JSON.parse(l);
  let text = typeof v === 'string' ? v : v.text;
  if (norm) text = norm.normalizeString(text);
  return JSON.stringify(pre ? pre.preTokenizeString(text).map((p) => p[0]) : [text]);
});
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
