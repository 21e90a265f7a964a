"""Records BIRD mini-dev's official Soft-F1 per item, for every release of evaluation_f1.py, under several hash seeds.

Usage (Python 3, standard library only):
  git clone https://github.com/bird-bench/mini_dev && cd mini_dev
  git show 8c7df91:llm/src/evaluation_f1.py   > /tmp/f1-2024-06.py
  git show 1a78e71:llm/src/evaluation_f1.py   > /tmp/f1-2024-07.py
  git show bee73fe:evaluation/evaluation_f1.py > /tmp/f1-2025-06.py
  python3 official-soft-f1.py /tmp BIRD_SAMPLE_DIR PREDICTIONS.json > out.jsonl

Only `calculate_row_match` and `calculate_f1_score` are taken from each release (exec'd from its source text);
the queries run as the official `execute_sql` runs them: Python's sqlite3, prediction first, on the gold's
database. Each release is scored in a fresh interpreter per PYTHONHASHSEED, so an item whose value changes with
the seed is one whose official value depends on set iteration order. One JSON line per item:
{"i", "question_id", "pred": rows|null, "gold": rows|null, "official": {"<release>": [distinct values over seeds]}}
Rows use sqlsweep's SqlValue encoding, so a test can feed them to softF1 directly.
"""
import base64, json, os, re, sqlite3, subprocess, sys

RELEASES = ['2024-06', '2024-07', '2025-06']
SEEDS = ['0', '1', '2', '3', '4', '5', '6', '7']


def encode(v):
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return {'blob': base64.b64encode(v).decode()}
    if isinstance(v, int):
        return v if abs(v) <= 2**53 - 1 else {'int': str(v)}
    if v != v or v in (float('inf'), float('-inf')):
        return {'real': 'NaN' if v != v else ('Infinity' if v > 0 else '-Infinity')}
    return {'real': v} if v == int(v) else v


def decode(v):
    if isinstance(v, dict):
        if 'blob' in v:
            return base64.b64decode(v['blob'])
        if 'int' in v:
            return int(v['int'])
        return float(v['real'])
    return v


def official_functions(folder, release):
    src = open(os.path.join(folder, f'f1-{release}.py')).read()
    body = re.search(r'def calculate_row_match.*?\n    return f1_score\n', src, re.S).group(0)
    ns = {}
    exec(body, ns)
    return ns['calculate_f1_score']


def score_items(folder, release, items):
    """Runs in a child interpreter with a given PYTHONHASHSEED."""
    f1 = official_functions(folder, release)
    out = []
    for it in items:
        if it['pred'] is None or it['gold'] is None:
            out.append(0)
        else:
            out.append(f1([tuple(decode(c) for c in r) for r in it['pred']], [tuple(decode(c) for c in r) for r in it['gold']]))
    return out


def main():
    if sys.argv[1] == '--score':
        folder, release = sys.argv[2], sys.argv[3]
        items = json.load(sys.stdin)
        json.dump(score_items(folder, release, items), sys.stdout)
        return
    folder, sample, pred_file = sys.argv[1:4]
    gold_lines = [l.rstrip('\n') for l in open(os.path.join(sample, 'dev_gold.sql')) if l.strip()]
    questions = json.load(open(os.path.join(sample, 'dev.json')))
    preds = json.load(open(pred_file))
    items = []
    for i, line in enumerate(gold_lines):
        gold_sql, db = line.split('\t')
        raw = preds[str(i)]
        pred_sql = raw.split('\t----- bird -----\t')[0] if isinstance(raw, str) else ' '
        conn = sqlite3.connect(os.path.join(sample, 'dev_databases', db, f'{db}.sqlite'))
        cur = conn.cursor()
        try:
            cur.execute(pred_sql)
            pred_rows = [[encode(c) for c in r] for r in cur.fetchall()]
            cur.execute(gold_sql)
            gold_rows = [[encode(c) for c in r] for r in cur.fetchall()]
        except Exception:
            pred_rows = gold_rows = None  # the official scores an error 0
        conn.close()
        items.append({'i': i, 'question_id': questions[i]['question_id'], 'pred': pred_rows, 'gold': gold_rows})
    official = {r: [set() for _ in items] for r in RELEASES}
    for release in RELEASES:
        for seed in SEEDS:
            env = dict(os.environ, PYTHONHASHSEED=seed)
            res = subprocess.run([sys.executable, __file__, '--score', folder, release], input=json.dumps(items),
                                 capture_output=True, text=True, env=env, check=True)
            for k, v in enumerate(json.loads(res.stdout)):
                official[release][k].add(v)
    for k, it in enumerate(items):
        it['official'] = {r: sorted(official[r][k]) for r in RELEASES}
        print(json.dumps(it))


main()
