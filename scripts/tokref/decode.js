// Reference decoder: text from Hugging Face's Rust tokenizers (npm `tokenizers`), for golden files.
// usage: node scripts/tokref/decode.js TOKENIZER.json [--skip-special] < ids.jsonl > texts.jsonl
//   input lines: one JSON array of ids (as encode.js writes them); output: one JSON string per
//   line, tokenizer.decode(ids, skipSpecialTokens) (false unless --skip-special).
// The binding comes from $TOKREF_DIR/node_modules (default <repo>/.cache/tokref, made by
// scripts/tokref-setup.sh).
process.env.RAYON_NUM_THREADS = process.env.RAYON_NUM_THREADS || '1';
process.env.TOKENIZERS_PARALLELISM = 'false';
const fs = require('fs');
const path = require('path');
const tokrefDir = process.env.TOKREF_DIR || path.join(__dirname, '..', '..', '.cache', 'tokref');
const { Tokenizer } = require(path.join(tokrefDir, 'node_modules', 'tokenizers'));
const args = process.argv.slice(2);
const skipSpecial = args.includes('--skip-special');
const tokPath = args.find((a) => !a.startsWith('--'));
if (!tokPath) { console.error('usage: node decode.js TOKENIZER.json [--skip-special] < ids.jsonl'); process.exit(2); }
const tok = Tokenizer.fromFile(tokPath);
const lines = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l.length);
(async () => {
  const out = [];
  for (const [i, l] of lines.entries()) {
    let ids;
    try { ids = JSON.parse(l); } catch (e) { console.error(`stdin line ${i + 1}: ${e.message}`); process.exit(1); }
    out.push(JSON.stringify(await tok.decode(ids, skipSpecial)));
  }
  process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
})();
