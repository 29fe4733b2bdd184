# Generates corpus.jsonl (first 800 lines kept) for the random differential set. Fixed seed.
import json, random
random.seed(7)
pools = [
 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " \t\n\r\u00a0\u2028\u3000\u0085\u000b\u000c",
 "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "ſKÅſßéèêëñüöäçÀÉÎ", "日本語のテキスト漢字中文한국어", "אבגדעברית العربية ",
 "\u0301\u0308\u0327\u200d\u200c\ufe0f\u20e3", "😀🧑‍🤝‍🧑👍🏽🇺🇸", "\U0002EBF0\U0001E5D0\U0001E5F1\U0001CCF0\ua7cb\u1c89\U00010940\u088f",
 "'s't're've'm'll'd'S'T'RE'VE'M'LL'D", "<s>",
 "▁", "\U00010000\U0001F600\U00020000\U000E0001\U0010FFFD\ue000",
]
specials = ["<s>","</s>","<unk>","<|begin_of_text|>","<|eot_id|>","<|im_start|>","<|im_end|>","<think>","</think>","<bos>","<eos>","<start_of_turn>","<｜User｜>","<|endoftext|>"]
def rnd():
    out = []
    for _ in range(random.randint(1, 60)):
        p = random.choice(pools)
        if p == "<s>":
            out.append(random.choice(specials))
        elif p.startswith("'s"):
            out.append(random.choice(["'s","'t","'re","'ve","'m","'ll","'d","'S","'LL","'ſ","'K","'Re"]))
        else:
            out.append(''.join(random.choice(p) for _ in range(random.randint(1, 6))))
    return ''.join(out)
def randcp():
    s = []
    for _ in range(random.randint(1, 20)):
        c = random.randint(0, 0x10FFFF)
        if 0xD800 <= c < 0xE000: c = 0x41
        s.append(chr(c))
        if random.random() < 0.3: s.append(random.choice(" a1'\n"))
    return ''.join(s)
with open('corpus.jsonl', 'w') as f:
    for i in range(3000):
        f.write(json.dumps({"text": rnd() if i % 3 else randcp()}) + "\n")
