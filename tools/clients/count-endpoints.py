"""Count the Nautobot 2.4.36 model endpoints netkeel serves, app by app: the reference's routers
(nautobot/<app>/api/urls.py at v2.4.36) against the app roots of a running netkeel."""
import json, re, subprocess, sys, urllib.request
url = sys.argv[1] if len(sys.argv) > 1 else 'http://127.0.0.1:8080'
token = '0123456789abcdef0123456789abcdef01234567'
git = ['git', '--git-dir=/work/.mirror/nautobot+nautobot/repo', 'show']
def get(path):
    req = urllib.request.Request(url + path, headers={'Authorization': f'Token {token}', 'Accept': 'application/json'})
    return json.load(urllib.request.urlopen(req))
total_ref = total_ours = 0
missing_all = {}
for app in ['circuits', 'cloud', 'dcim', 'extras', 'ipam', 'tenancy', 'users', 'virtualization', 'wireless']:
    text = subprocess.run(git + [f'v2.4.36:nautobot/{app}/api/urls.py'], capture_output=True, text=True).stdout
    ref = sorted(set(re.findall(r'router\.register\(\s*(?:r?)"([^"]+)"', text, re.S)))
    try:
        ours = set(k for k in get(f'/api/{app}/').keys())
    except Exception:
        ours = set()
    served = [r for r in ref if r in ours]
    missing = [r for r in ref if r not in ours]
    total_ref += len(ref); total_ours += len(served)
    missing_all[app] = missing
    print(f'{app}: {len(served)} of {len(ref)}' + (f'  missing: {", ".join(missing)}' if missing else ''))
print(f'total: {total_ours} of {total_ref}')
