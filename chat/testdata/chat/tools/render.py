# Renders chat templates with tools the way transformers' apply_chat_template does, to make the
# goldens TestRenderToolsMatchesReference compares our gonja rendering with. transformers
# renders with jinja2's ImmutableSandboxedEnvironment (trim_blocks, lstrip_blocks, the
# loopcontrols extension), its own tojson filter (json.dumps: ensure_ascii=False, indent,
# separators, sort_keys), raise_exception and strftime_now; this script builds exactly that
# environment (transformers itself need not be installed, only jinja2 >= 3.1). Messages are
# first prepared as an OpenAI-compatible server (vLLM) prepares a request's: a tool call's
# arguments, JSON text in the API, are parsed into a dict (an empty string gives {}; text that
# is not JSON is kept as it is), a null content becomes "" (as the reader's contentText gives);
# absent fields stay absent.
#
# usage (from the repository root):
#   python3 chat/testdata/chat/tools/render.py .cache/tokenizers chat/testdata/chat/tools
# It writes TEMPLATE.CASE.txt for each template of cases.json and each case it lists. A
# template is a cached tokenizer's name (its tokenizer_config.json gives the template, bos and
# eos) or NAME.jinja in the output folder with the bos/eos of the tokenizer cases.json names.
import json
import os
import sys
from datetime import datetime

from jinja2.exceptions import TemplateError
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def raise_exception(message):
    raise TemplateError(message)


def strftime_now(fmt):
    # The fixed day chat.Renderer renders (chatDate), not the clock, so goldens stay put.
    return datetime(2024, 7, 26).strftime(fmt)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def prepare(messages):
    for m in messages:
        if m.get("content") is None:
            m["content"] = ""
        for call in m.get("tool_calls") or []:
            fn = call["function"]
            args = fn.get("arguments")
            if not args:
                fn["arguments"] = {}
            elif isinstance(args, str):
                try:
                    fn["arguments"] = json.loads(args)
                except ValueError:
                    pass
    return messages


def token_text(t):
    return (t.get("content") if isinstance(t, dict) else t) or ""


def load_template(cache, out_dir, spec):
    cfg_name = spec.get("tokenizer", spec["name"])
    with open(os.path.join(cache, cfg_name, "tokenizer_config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    source = cfg["chat_template"]
    if spec.get("file"):
        with open(os.path.join(out_dir, spec["file"]), encoding="utf-8") as f:
            source = f.read()
    return source, token_text(cfg.get("bos_token")), token_text(cfg.get("eos_token"))


def main():
    cache, out_dir = sys.argv[1:3]
    with open(os.path.join(out_dir, "cases.json"), encoding="utf-8") as f:
        spec = json.load(f)
    env = environment()
    for tpl in spec["templates"]:
        source, bos, eos = load_template(cache, out_dir, tpl)
        template = env.from_string(source)
        for case in spec["cases"]:
            if case["name"] in tpl.get("skip", []):
                continue
            msgs = prepare(json.loads(json.dumps(case["messages"])))
            out = template.render(messages=msgs, tools=case.get("tools"), add_generation_prompt=True,
                                  bos_token=bos, eos_token=eos)
            name = tpl["name"] + "." + case["name"] + ".txt"
            with open(os.path.join(out_dir, name), "w", encoding="utf-8", newline="") as f:
                f.write(out)
            print(name)


main()
