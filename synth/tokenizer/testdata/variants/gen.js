// Makes ids.json: the Rust reference's ids for every text under every variant of variants.json.
// A variant is a real tokenizer.json (base) with top-level components replaced (patch) and
// added tokens appended (add_tokens). usage (from the repo root):
//   node synth/tokenizer/testdata/variants/gen.js > synth/tokenizer/testdata/variants/ids.json
const fs = require('fs');
const path = require('path');
const root = path.join(__dirname, '..', '..', '..', '..');
const { Tokenizer } = require(path.join(root, '.cache', 'tokref', 'node_modules', 'tokenizers'));
const cache = process.env.REPLAY_TOKENIZER_CACHE || path.join(root, '.cache', 'tokenizers');
const bases = { mistral: path.join(root, 'samples', 'tokenizer', 'mistral', 'tokenizer.json'), llama3: path.join(cache, 'llama3', 'tokenizer.json') };
const spec = JSON.parse(fs.readFileSync(path.join(__dirname, 'variants.json'), 'utf8'));
(async () => {
  const out = {};
  for (const v of spec.variants) {
    const j = JSON.parse(fs.readFileSync(bases[v.base], 'utf8'));
    Object.assign(j, v.patch || {});
    if (v.add_tokens) j.added_tokens = j.added_tokens.concat(v.add_tokens);
    const tok = Tokenizer.fromString(JSON.stringify(j));
    const ids = [], special = [], decoded = [];
    for (const t of spec.texts) {
      const e = await tok.encode(t, null, { addSpecialTokens: false });
      ids.push(Array.from(e.getIds()));
      special.push(Array.from((await tok.encode(t, null, { addSpecialTokens: true })).getIds()));
      decoded.push(await tok.decode(Array.from(e.getIds()), false));
    }
    out[v.name] = { ids, special, decoded };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
})();
