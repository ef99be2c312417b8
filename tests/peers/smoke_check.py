"""Smoke check of the three peers (stdlib only; no cargo needed).

Usage (repo root):  python3 tests/peers/smoke_check.py
Starts each peer on a free port, runs every scenario once over JSON-RPC
(plus a few REST calls on the v1.0 peers), prints PASS/FAIL lines and exits
non-zero on any failure. Assumes tests/peers/install.sh has run.
"""
import os
import json, subprocess, sys, time, urllib.request, urllib.error
def post(url, body, headers={}, stream=False):
    req = urllib.request.Request(url, json.dumps(body).encode(), {'Content-Type':'application/json', **headers})
    try:
        r = urllib.request.urlopen(req, timeout=30)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    if stream:
        evs=[]
        for line in r:
            line=line.decode().strip()
            if line.startswith('data:'): evs.append(json.loads(line[5:]))
        return r.status, evs
    return r.status, json.loads(r.read())
def get(url, headers={}):
    try:
        r = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10); return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e: return e.code, e.read().decode()
ok=True
def check(name, cond, info=''):
    global ok
    print(('PASS ' if cond else 'FAIL ')+name+('' if cond else '  '+str(info)[:300])); ok &= bool(cond)
def run(kind, cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    base = p.stdout.readline().split()[1]; J = base+'/a2a/jsonrpc'
    v03 = kind=='py03'; H = {} if v03 else {'A2A-Version':'1.0'}
    def msg(text, task=None):
        m = {"messageId":"m%f"%time.time(),"role":"user" if v03 else "ROLE_USER","parts":[{"kind":"text","text":text} if v03 else {"text":text}]}
        if v03: m["kind"]="message"
        if task: m["taskId"]=task
        return m
    def send(text, task=None, method=None, cfg=None):
        params={"message":msg(text,task)}
        if cfg: params["configuration"]=cfg
        s, b = post(J, {"jsonrpc":"2.0","id":1,"method":method or ("message/send" if v03 else "SendMessage"),"params":params}, H)
        r = b.get('result', b)
        if not v03 and isinstance(r, dict):
            r = r.get('task') or r.get('message') or r
        return r
    st = lambda t: t['status']['state']
    s, card = get(base+'/.well-known/agent-card.json'); check(f'{kind} card', s==200 and card['capabilities']['streaming'] is True, card)
    r = send('Echo hi there'); check(f'{kind} echo', r['artifacts'][0]['name']=='echo' and r['artifacts'][0]['parts'][0]['text']=='echo: Echo hi there' and st(r) in ('completed','TASK_STATE_COMPLETED'), r)
    r = send('unknown words'); check(f'{kind} fallback echo', r['artifacts'][0]['parts'][0]['text']=='echo: unknown words', r)
    r = send('MESSAGE'); check(f'{kind} message', 'status' not in r and r['parts'][0]['text']=='direct reply', r)
    r = send('fail'); check(f'{kind} fail', st(r) in ('failed','TASK_STATE_FAILED') and r['status']['message']['parts'][0]['text']=='Scenario failure requested', r)
    r = send('ask'); check(f'{kind} ask', st(r) in ('input-required','TASK_STATE_INPUT_REQUIRED') and r['status']['message']['parts'][0]['text']=='What is your name?', r)
    r2 = send('Carol', task=r['id']); check(f'{kind} ask answer', r2['id']==r['id'] and r2['artifacts'][-1]['parts'][0]['text']=='Nice to meet you, Carol' and r2['contextId']==r['contextId'], r2)
    s, evs = post(J, {"jsonrpc":"2.0","id":2,"method":"message/stream" if v03 else "SendStreamingMessage","params":{"message":msg('stream')}}, H, stream=True)
    res=[e['result'] for e in evs]
    arts=[x.get('artifactUpdate', x) for x in res if 'artifactUpdate' in x or x.get('kind')=='artifact-update']
    texts=''.join(a['artifact']['parts'][0]['text'] for a in arts)
    check(f'{kind} stream', len(arts)==10 and texts==''.join(f'chunk {i} ' for i in range(10)) and arts[-1].get('lastChunk') and not arts[0].get('append') and all(a.get('append') for a in arts[1:]), texts)
    r = send('slow', cfg={"blocking":False} if v03 else {"returnImmediately":True}); time.sleep(1.2)
    t0=time.time(); s, b = post(J, {"jsonrpc":"2.0","id":3,"method":"tasks/cancel" if v03 else "CancelTask","params":{"id":r['id']}}, H); dt=time.time()-t0
    check(f'{kind} cancel slow ({dt:.2f}s)', st(b['result']) in ('canceled','TASK_STATE_CANCELED') and dt<1.0, b)
    s, b = post(J, {"jsonrpc":"2.0","id":4,"method":"tasks/get" if v03 else "GetTask","params":{"id":r['id']}}, H)
    check(f'{kind} get canceled', st(b['result']) in ('canceled','TASK_STATE_CANCELED'), b)
    if not v03:
        s, b = post(J, {"jsonrpc":"2.0","id":5,"method":"ListTasks","params":{}}, H); check(f'{kind} list', len(b['result']['tasks'])>=6, b)
    m = "agent/getAuthenticatedExtendedCard" if v03 else "GetExtendedAgentCard"
    s, b = post(J, {"jsonrpc":"2.0","id":6,"method":m}, H); check(f'{kind} ext no token -> 401', s==401, (s,b))
    s, b = post(J, {"jsonrpc":"2.0","id":6,"method":m}, {**H,'Authorization':'Bearer wrong'}); check(f'{kind} ext bad token -> 401', s==401, (s,b))
    s, b = post(J, {"jsonrpc":"2.0","id":6,"method":m}, {**H,'Authorization':'Bearer peer-secret'}); check(f'{kind} ext ok', s==200 and b['result']['skills'][-1]['id']=='secret-skill', b)
    if not v03:
        R=base+'/a2a/rest'
        s, b = get(R+'/extendedAgentCard', H); check(f'{kind} REST ext no token -> 401', s==401)
        s, b = get(R+'/extendedAgentCard', {**H,'Authorization':'Bearer peer-secret'}); check(f'{kind} REST ext ok', s==200 and b['skills'][-1]['id']=='secret-skill')
        s, b = post(R+'/message:send', {"message":msg('echo rest')}, H); check(f'{kind} REST echo', s==200 and b['task']['artifacts'][0]['parts'][0]['text']=='echo: echo rest', b)
    p.stdin.close(); p.wait(5)
HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.environ.get('PEERS_DIR') or os.path.join(HERE, '..', '..', 'target', 'peers')
run('py10', [os.path.join(PEERS, 'py10', 'bin', 'python'), os.path.join(HERE, 'py10_agent.py'), '--port', '0'])
run('py03', [os.path.join(PEERS, 'py03', 'bin', 'python'), os.path.join(HERE, 'py03_agent.py'), '--port', '0'])
run('js', ['node', os.path.join(HERE, 'js_agent.mjs'), '--port', '0'])
print('ALL OK' if ok else 'SOME FAILED')
sys.exit(0 if ok else 1)
