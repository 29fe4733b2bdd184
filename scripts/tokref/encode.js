// Reference encoder: token ids from Hugging Face's Rust tokenizers (npm `tokenizers`), for golden files.
// usage: node encode.js TOKENIZER.json [--special] < texts.jsonl > ids.jsonl
//   input lines: {"text": "..."} or a bare JSON string; output: one JSON array of ids per line.
//   --special lets the tokenizer's post-processor add its special tokens (BOS and the like).
// Run from the folder scripts/tokref-setup.sh installs it in, beside its node_modules.
process.env.RAYON_NUM_THREADS = process.env.RAYON_NUM_THREADS || '1'; // ids do not depend on it; timing runs do
process.env.TOKENIZERS_PARALLELISM = 'false';
const fs = require('fs');
const { Tokenizer } = require('tokenizers');
const args = process.argv.slice(2);
const addSpecialTokens = args.includes('--special');
const tokPath = args.find((a) => !a.startsWith('--'));
if (!tokPath) { console.error('usage: node encode.js TOKENIZER.json [--special] < texts.jsonl'); process.exit(2); }
const tok = Tokenizer.fromFile(tokPath);
const input = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l.length);
(async () => {
  const lines = [];
  for (const [i, l] of input.entries()) {
    let v;
    try { v = JSON.parse(l); } catch (e) { console.error(`stdin:${i + 1}: ${e.message}`); process.exit(1); }
    const enc = await tok.encode(typeof v === 'string' ? v : v.text, null, { addSpecialTokens });
    lines.push(JSON.stringify(Array.from(enc.getIds())));
  }
  process.stdout.write(lines.length ? lines.join('\n') + '\n' : '');
})();
