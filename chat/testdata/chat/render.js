// Renders chat templates with @huggingface/jinja (Hugging Face's own JavaScript Jinja, the one
// transformers.js uses for apply_chat_template) to make the goldens TestChatTemplatesMatchHF
// compares our gonja rendering with.
// usage (from the repo root, with the package installed somewhere on NODE_PATH):
//   NODE_PATH=/path/to/node_modules node chat/testdata/chat/render.js .cache/tokenizers chat/testdata/chat
// It writes NAME.txt for each tokenizer folder whose tokenizer_config.json has a chat template,
// rendering conversation.json with add_generation_prompt and the config's bos/eos tokens
// (the library brings its own raise_exception and strftime_now).
const fs = require('fs');
const path = require('path');
const { Template } = require('@huggingface/jinja');
const [cache, outDir] = process.argv.slice(2);
const conv = JSON.parse(fs.readFileSync(path.join(outDir, 'conversation.json'), 'utf8'));
const tokenString = (t) => (t && typeof t === 'object' ? t.content : t) || '';
for (const name of fs.readdirSync(cache).sort()) {
  const cfgPath = path.join(cache, name, 'tokenizer_config.json');
  if (!fs.existsSync(cfgPath)) continue;
  const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'));
  let tpl = cfg.chat_template;
  if (Array.isArray(tpl)) tpl = (tpl.find((t) => t.name === 'default') || {}).template;
  if (!tpl) continue;
  const out = new Template(tpl).render({
    messages: conv,
    add_generation_prompt: true,
    bos_token: tokenString(cfg.bos_token),
    eos_token: tokenString(cfg.eos_token),
  });
  fs.writeFileSync(path.join(outDir, name + '.txt'), out);
  console.log(name);
}
