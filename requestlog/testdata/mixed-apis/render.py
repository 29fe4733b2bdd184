# The independent reference for TestMixedAPIs: every chat, Responses and Messages request of
# ../mixed-apis.jsonl turned into the chat messages and tools a serving engine renders, and
# rendered with the model's chat template as transformers' apply_chat_template renders it
# (jinja2's ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks, loopcontrols, its
# tojson = json.dumps, raise_exception, strftime_now at the fixed day the Go renderer uses).
# It shares no code with the Go reader: the conversions below are written from the engines'
# sources, each cited where it is used.
#
# usage (from the repository root; needs only jinja2 >= 3.1):
#   python3 requestlog/testdata/mixed-apis/render.py .cache/tokenizers requestlog/testdata
# It writes mixed-apis/TEMPLATE.jsonl: one {"line": N, "prompt": TEXT} per chat-family line
# (or {"line": N, "error": MESSAGE} where the template refuses the conversation).
import json
import os
import sys
from datetime import datetime

from jinja2.exceptions import TemplateError
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

TEMPLATES = ["qwen3", "llama3", "llama3_1_tools"]


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise TemplateError(message)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime(2024, 7, 26).strftime(fmt)
    return env


def api_of(line):
    path = line.get("path", "")
    for suffix, api in (("/chat/completions", "chat"), ("/completions", "completions"), ("/responses", "responses"),
                        ("/messages", "messages"), ("/embeddings", "embeddings")):
        if path.split("?")[0].endswith(suffix):
            return api
    body = line["request"]
    if "prompt" in body:
        return "completions"
    if "messages" in body:
        blocks = [b for m in body["messages"] if isinstance(m.get("content"), list) for b in m["content"]]
        if "system" in body or any(b.get("type") in ("tool_use", "tool_result", "thinking") for b in blocks):
            return "messages"
        return "chat"
    if isinstance(body["input"], list) and body["input"] and isinstance(body["input"][0], dict):
        return "responses"
    if any(k in body for k in ("tools", "instructions", "text", "store", "include", "previous_response_id")):
        return "responses"
    return "embeddings"


def text_of(content):
    # vLLM's chat parser joins a message's text parts with newlines.
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", p.get("refusal", "")) for p in content)


def chat_messages(body):
    out = []
    for m in body["messages"]:
        msg = {"role": m["role"], "content": text_of(m.get("content"))}
        for k in ("tool_calls", "tool_call_id", "name"):
            if m.get(k):
                msg[k] = m[k]
        out.append(msg)
    return out, body.get("tools")


def llamacpp_tool(name, description, parameters):
    # ggml-org/llama.cpp@0083bb18d6ac197bb463662c79569a8172811554:common/chat.cpp,
    # common_chat_tools_to_json_oaicompat: name, description ("" when absent), parameters ({}).
    return {"type": "function", "function": {"name": name, "description": description or "",
                                             "parameters": parameters if parameters is not None else {}}}


def responses_messages(body, chains):
    # vllm-project/vllm@d0ac57910c16de107f5758d0e530b638d8b0f91b:
    # vllm/entrypoints/openai/responses/utils.py construct_input_messages, with the later
    # merging of calls and text into the assistant message before them.
    head = [{"role": "system", "content": body["instructions"]}] if body.get("instructions") else []
    history = list(chains[body["previous_response_id"]]) if body.get("previous_response_id") else []
    msgs = []
    inp = body["input"]
    items = [{"type": "message", "role": "user", "content": inp}] if isinstance(inp, str) else inp
    for item in items:
        last = msgs[-1] if msgs and msgs[-1]["role"] == "assistant" else None
        kind = item.get("type", "message")
        if kind == "function_call":
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}
            if last is not None:
                last.setdefault("tool_calls", []).append(call)
            else:
                msgs.append({"role": "assistant", "content": "", "tool_calls": [call]})
        elif kind == "function_call_output":
            msgs.append({"role": "tool", "content": text_of(item["output"]), "tool_call_id": item["call_id"]})
        elif kind == "reasoning":
            parts = item.get("content") or item.get("summary") or [{"text": ""}]
            if last is not None and not last.get("reasoning_content"):
                last["reasoning_content"] = parts[0]["text"]
            else:
                msgs.append({"role": "assistant", "content": "", "reasoning_content": parts[0]["text"]})
        else:
            text = text_of(item["content"])
            if item["role"] == "assistant" and last is not None and last["content"] == "":
                last["content"] = text
            else:
                msgs.append({"role": item["role"], "content": text})
    tools = [llamacpp_tool(t["name"], t.get("description"), t.get("parameters"))
             for t in body.get("tools", []) if t["type"] == "function"] or None
    return head, history + msgs, tools


def responses_output(resp):
    texts, calls = [], []
    for item in resp.get("output", []):
        if item["type"] == "message":
            texts.append(text_of(item["content"]))
        elif item["type"] == "function_call":
            calls.append({"id": item["call_id"], "type": "function",
                          "function": {"name": item["name"], "arguments": item["arguments"]}})
    if not texts and not calls:
        return []
    msg = {"role": "assistant", "content": "\n".join(texts)}
    if calls:
        msg["tool_calls"] = calls
    return [msg]


def anthropic_messages(body):
    # vllm-project/vllm@0001948bc76939369ca855c90b36d81256477e85:
    # vllm/entrypoints/anthropic/serving.py, _convert_anthropic_to_openai_request.
    out = []
    system = body.get("system")
    if isinstance(system, list):
        system = "".join(b["text"] for b in system if b["type"] == "text")
    if system:
        out.append({"role": "system", "content": system})
    for m in body["messages"]:
        if isinstance(m["content"], str):
            out.append({"role": m["role"], "content": m["content"]})
            continue
        texts, calls, thinking = [], [], []
        for b in m["content"]:
            if b["type"] == "text" and b["text"]:
                texts.append(b["text"])
            elif b["type"] == "thinking":
                thinking.append(b["thinking"])
            elif b["type"] == "tool_use":
                calls.append({"id": b["id"], "type": "function",
                              "function": {"name": b["name"], "arguments": json.dumps(b.get("input") or {})}})
            elif b["type"] == "tool_result":
                c = b.get("content") or ""
                out.append({"role": "tool", "tool_call_id": b["tool_use_id"],
                            "content": c if isinstance(c, str) else "\n".join(x["text"] for x in c)})
        if m["role"] == "user" and not texts:
            continue
        msg = {"role": m["role"], "content": "\n".join(texts)}
        if calls:
            msg["tool_calls"] = calls
        if thinking:
            msg["reasoning_content"] = "".join(thinking)
        out.append(msg)
    tools = [llamacpp_tool(t["name"], t.get("description"), t.get("input_schema")) for t in body.get("tools", [])] or None
    return out, tools


def prepare(messages):
    # As an OpenAI-compatible server (vLLM) hands messages to the template: a call's
    # arguments parsed into a dict.
    out = json.loads(json.dumps(messages))
    for m in out:
        for call in m.get("tool_calls") or []:
            args = call["function"]["arguments"]
            call["function"]["arguments"] = json.loads(args) if args else {}
    return out


def conversations(path):
    chains = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = json.loads(raw)
            api, body, resp = api_of(line), line["request"], line.get("response") or {}
            if api == "chat":
                msgs, tools = chat_messages(body)
            elif api == "messages":
                msgs, tools = anthropic_messages(body)
            elif api == "responses":
                head, conv, tools = responses_messages(body, chains)
                msgs = head + conv
                if resp.get("id"):
                    chains[resp["id"]] = conv + responses_output(resp)
            else:
                continue
            yield n, msgs, tools


def token_text(t):
    return (t.get("content") if isinstance(t, dict) else t) or ""


def main():
    cache, testdata = sys.argv[1:3]
    env = environment()
    for name in TEMPLATES:
        with open(os.path.join(cache, name, "tokenizer_config.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        template = env.from_string(cfg["chat_template"])
        out_path = os.path.join(testdata, "mixed-apis", name + ".jsonl")
        with open(out_path, "w", encoding="utf-8", newline="") as out:
            for n, msgs, tools in conversations(os.path.join(testdata, "mixed-apis.jsonl")):
                try:
                    text = template.render(messages=prepare(msgs), tools=tools, add_generation_prompt=True,
                                           bos_token=token_text(cfg.get("bos_token")), eos_token=token_text(cfg.get("eos_token")))
                    rec = {"line": n, "prompt": text}
                except TemplateError as e:
                    rec = {"line": n, "error": str(e)}
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        print(out_path)


main()
