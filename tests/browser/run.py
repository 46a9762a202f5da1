"""Serves the repository on a loopback port, opens tests/browser/page.html in headless
Chromium through ChromeDriver (plain WebDriver HTTP, no client library), waits for the line the
page writes and checks it. Exit 0 only when the page says ok."""
import functools, http.server, json, os, socket, subprocess, sys, threading, time, urllib.request

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=root))
threading.Thread(target=server.serve_forever, daemon=True).start()
page = f"http://127.0.0.1:{server.server_address[1]}/tests/browser/page.html"

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
base = f"http://127.0.0.1:{port}"

def wd(method, path, body=None):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)["value"]

line = "RESULT: no result in the page"
try:
    for _ in range(100):
        try:
            wd("GET", "/status")
            break
        except OSError:
            time.sleep(0.1)
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
    caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args}}}}
    session = wd("POST", "/session", caps)["sessionId"]
    try:
        wd("POST", f"/session/{session}/url", {"url": page})
        for _ in range(600):
            line = wd("POST", f"/session/{session}/execute/sync",
                      {"script": "return document.getElementById('out').textContent", "args": []})
            if not line.startswith("RESULT: pending"):
                break
            time.sleep(0.1)
    finally:
        wd("DELETE", f"/session/{session}")
finally:
    driver.terminate()
    server.shutdown()
print(f"browser page: {line}")
sys.exit(0 if line.startswith("RESULT: ok") else 1)
