// Reference throughput: Hugging Face's Rust tokenizers (npm `tokenizers`) encoding a text file,
// single-threaded, add_special_tokens=false.
// usage: node scripts/tokref/bench.js TOKENIZER.json FILE [--min-seconds S]
// Prints one JSON line: bytes, tokens and bytes/s, tokens/s for the file encoded whole and for
// the file encoded line by line (each line without its "\n", awaited one after another). Each
// mode repeats until at least S seconds (default 3) have passed; CPU seconds of the process are
// reported too (bytes_per_cpu_s), as wall time is unreliable on a loaded machine.
process.env.RAYON_NUM_THREADS = '1';
process.env.TOKENIZERS_PARALLELISM = 'false';
const fs = require('fs');
const path = require('path');
const tokrefDir = process.env.TOKREF_DIR || path.join(__dirname, '..', '..', '.cache', 'tokref');
const { Tokenizer } = require(path.join(tokrefDir, 'node_modules', 'tokenizers'));
const args = process.argv.slice(2);
let minSeconds = 3;
const pos = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--min-seconds') minSeconds = Number(args[++i]);
  else pos.push(args[i]);
}
if (pos.length !== 2 || !(minSeconds > 0)) {
  console.error('usage: node bench.js TOKENIZER.json FILE [--min-seconds S]');
  process.exit(2);
}
const [tokPath, file] = pos;
const tok = Tokenizer.fromFile(tokPath);
const text = fs.readFileSync(file, 'utf8');
const bytes = Buffer.byteLength(text, 'utf8');
const lines = text.split('\n');

async function encodeWhole() {
  const enc = await tok.encode(text, null, { addSpecialTokens: false });
  return enc.getIds().length;
}
async function encodeLines() {
  let n = 0;
  for (const l of lines) {
    const enc = await tok.encode(l, null, { addSpecialTokens: false });
    n += enc.getIds().length;
  }
  return n;
}
async function measure(fn) {
  const tokens = await fn(); // warm-up, also the token count
  let runs = 0;
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let secs = 0;
  do {
    await fn();
    runs++;
    secs = Number(process.hrtime.bigint() - start) / 1e9;
  } while (secs < minSeconds);
  const c = process.cpuUsage(cpu0);
  const cpu = (c.user + c.system) / 1e6; // the fairer figure on a shared machine
  return {
    tokens, runs, seconds: +secs.toFixed(3), cpu_seconds: +cpu.toFixed(3),
    bytes_per_s: Math.round((bytes * runs) / secs), tokens_per_s: Math.round((tokens * runs) / secs),
    bytes_per_cpu_s: Math.round((bytes * runs) / cpu),
  };
}
(async () => {
  const whole = await measure(encodeWhole);
  const byLine = await measure(encodeLines);
  console.log(JSON.stringify({ impl: 'hf-tokenizers-0.23-node', tokenizer: tokPath, file, bytes, lines: lines.length, threads: 1, whole, lines_mode: byLine }));
})();
