import sys, time, random
sys.path.insert(0, "tests")
from _shared import corpus_sample, MODELS
import tokenizers
from tokenforge.tokenizer import Tokenizer
files = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else None
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100
import glob, os
paths = sorted(glob.glob(str(MODELS / "hf" / "*.json")))
for p in paths:
    name = os.path.basename(p)
    if files and not any(f in name for f in files): continue
    t0 = time.time()
    ref = tokenizers.Tokenizer.from_file(p); ref.no_truncation(); ref.no_padding()
    ours = Tokenizer.from_file(p); ours.no_truncation(); ours.no_padding()
    bad = 0; total = 0
    for corp in ["en", "code", "multi", "mixed"]:
        lines = [l for l in corpus_sample(corp).split("\n") if l]
        random.seed(1); lines = random.sample(lines, min(N, len(lines)))
        for ln in lines:
            for special in (True, False):
                total += 1
                r = ref.encode(ln, add_special_tokens=special); o = ours.encode(ln, add_special_tokens=special)
                for f in ["ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask", "attention_mask"]:
                    a, b = getattr(r, f), getattr(o, f)
                    if a != b:
                        bad += 1
                        if bad <= 3:
                            print(name, corp, f, repr(ln[:80]))
                            for i,(x,y) in enumerate(zip(a,b)):
                                if x!=y: print("   at", i, "ref", a[max(0,i-2):i+3], "ours", b[max(0,i-2):i+3]); break
                            else: print("   len", len(a), len(b))
                        break
            d1 = ref.decode(r.ids); d2 = ours.decode(r.ids)
            if d1 != d2:
                bad += 1
                if bad <= 5: print(name, "decode", repr(d1[:60]), repr(d2[:60]))
    print(f"{name}: {bad} bad of {total}  {time.time()-t0:.1f}s", flush=True)
