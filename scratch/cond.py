import json, time
from tokenforge.pre_tokenizers.byte_level import CHAR_BYTES
for f in ['gpt2','llama3','llama3_1','cl100k_base_converted','o200k_base_converted','gpt35turbo','claude','qwen3','deepseek_v3']:
    t=time.time()
    d=json.load(open('../shared/models/hf/%s_tokenizer.json'%f))
    m=d['model']; v=m['vocab']
    merges=[tuple(x.split(' ')) if isinstance(x,str) else tuple(x) for x in m['merges']]
    res=[v[a+b] for a,b in merges]
    A=all(res[i]<=res[i+1] for i in range(len(res)-1))
    strict=len(set(res))==len(res)
    mset=set(merges)
    missing=0
    for tok in v:
        for k in range(1,len(tok)):
            if tok[:k] in v and tok[k:] in v and (tok[:k],tok[k:]) not in mset: missing+=1
    print(f, 'A',A,'unique',strict,'missing splits',missing, 'ignore_merges',m.get('ignore_merges'), '%.1fs'%(time.time()-t))
