package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/browser"
	"github.com/agentic-workspace/aw/engine/proc"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// requireChromium stops the test without Chromium or /proc (the tests check
// that no Chromium is left behind); see testenv.Missing.
func requireChromium(t testing.TB) {
	t.Helper()
	testenv.NeedProc(t)
	if _, err := browser.Executable(""); err != nil {
		testenv.Missing(t, fmt.Sprintf("Chromium (%v)", err), "apt-get install chromium chromium-driver")
	}
}

// browserWorkspace is a workspace with browser sessions on and loopback
// allowed (the test pages are served on 127.0.0.1). It fails the test if
// any Chromium whose profile is under it is still running at the end, and
// kills those so a failed test leaves nothing behind.
func browserWorkspace(t *testing.T, mode int, extra string) string {
	t.Helper()
	dir := t.TempDir()
	writeBrowserConfig(t, dir, mode, true, extra)
	t.Cleanup(func() {
		if left := chromiumUnder(dir); len(left) > 0 {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("Chromium processes left behind under %s: %v", dir, left)
		}
	})
	return dir
}

func writeBrowserConfig(t *testing.T, dir string, mode int, allowPrivate bool, extra string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	cfg := fmt.Sprintf(`{"permissionMode": %d, "research": {"allowPrivateNetwork": %v}, "browser": {"enabled": true%s}}`, mode, allowPrivate, extra)
	if err := os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// chromiumUnder scans /proc for living processes whose --user-data-dir is
// inside dir.
func chromiumUnder(dir string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := proc.Read(pid); !ok || !st.Living() {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		for _, arg := range strings.Split(string(cmd), "\x00") {
			if v, ok := strings.CutPrefix(arg, "--user-data-dir="); ok && strings.HasPrefix(v, dir+string(os.PathSeparator)) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// site serves the test pages on loopback.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	page("/", `<!doctype html><html><head><title>Start page</title></head><body>
<h1>Welcome</h1>
<p id="msg">before the click</p>
<button id="change" onclick="document.getElementById('msg').textContent='changed by the button'">Change it</button>
<button id="later" onclick="setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; d.textContent = 'arrived late'; document.body.appendChild(d); }, 400)">Later</button>
<p style="display:none">hidden words never read</p>
<form id="f" action="/search"><input name="q" id="q"><button type="submit">Search now</button></form>
<a href="/second">Second page</a> <a href="https://example.com/elsewhere">Elsewhere</a>
<div style="height: 5000px">tall</div><p id="bottom">the bottom</p>
</body></html>`)
	page("/second", `<!doctype html><title>Second page</title><p>the second page body</p>`)
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Results</title><p>results for %s</p>`, strings.ReplaceAll(r.URL.Query().Get("q"), "<", "&lt;"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func okEnv(t *testing.T, r Result, what string) {
	t.Helper()
	if r.Code != 0 || r.Env["ok"] != true {
		t.Fatalf("%s: exit %d: %s\nstderr: %s", what, r.Code, r.Stdout, r.Stderr)
	}
}

func pageField(t *testing.T, r Result, path string) string {
	t.Helper()
	s, _ := r.field(t, path).(string)
	return s
}

// TestBrowserSession drives one real headless Chromium through every
// control type. Each step is a separate aw process, so every step after
// open reconnects to the running Chromium through the session file.
func TestBrowserSession(t *testing.T) {
	requireChromium(t)
	srv := site(t)
	dir := browserWorkspace(t, 2, "")

	began := time.Now()
	r := runAW(t, dir, nil, "browser", "open", srv.URL+"/")
	okEnv(t, r, "open")
	t.Logf("open to a readable page: %s", time.Since(began))
	id := pageField(t, r, ".data.sessionId")
	if !strings.HasPrefix(id, "session_") || pageField(t, r, ".data.title") != "Start page" {
		t.Fatalf("open: %s", r.Stdout)
	}
	var sess browser.Session
	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "browser", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(raw, &sess)
	if !strings.HasPrefix(sess.WebSocketURL, "ws://127.0.0.1:") || sess.Pid == 0 || sess.TargetID == "" ||
		!strings.HasPrefix(sess.UserDataDir, filepath.Join(dir, ".agentic", "browser", id)) || sess.CreatedAt.IsZero() {
		t.Fatalf("session file lacks what a reconnect needs: %s", raw)
	}

	// read: visible text only, links in order, both omitted when summarizing.
	r = runAW(t, dir, nil, "browser", "read", id)
	okEnv(t, r, "read")
	text := pageField(t, r, ".data.text")
	if !strings.Contains(text, "before the click") || strings.Contains(text, "hidden words") {
		t.Fatalf("read text: %q", text)
	}
	if pageField(t, r, ".data.links.0.url") != srv.URL+"/second" || pageField(t, r, ".data.links.1.url") != "https://example.com/elsewhere" {
		t.Fatalf("read links: %s", r.Stdout)
	}
	if omit := fmt.Sprint(r.field(t, ".retention.omit_when_summarizing")); !strings.Contains(omit, "data.text") || !strings.Contains(omit, "data.links") {
		t.Fatalf("omit_when_summarizing: %s", omit)
	}

	// Two more aw processes reconnect at once: the session's call lock
	// takes them in turn, and both see the page.
	done := make(chan Result, 2)
	for range 2 {
		go func() { done <- runAW(t, dir, nil, "browser", "read", id) }()
	}
	for range 2 {
		if r := <-done; r.Code != 0 || !strings.Contains(pageField(t, r, ".data.text"), "before the click") {
			t.Fatalf("concurrent read: %s", r.Stdout)
		}
	}

	control := func(args ...string) Result {
		t.Helper()
		r := runAW(t, dir, nil, append([]string{"browser", "control", id}, args...)...)
		okEnv(t, r, "control "+strings.Join(args, " "))
		return r
	}
	readText := func() string {
		t.Helper()
		r := runAW(t, dir, nil, "browser", "read", id)
		okEnv(t, r, "read")
		return pageField(t, r, ".data.text")
	}

	control("--type", "click", "#change")
	if got := readText(); !strings.Contains(got, "changed by the button") {
		t.Fatalf("after click: %q", got)
	}

	// type into the form and submit it with its button.
	control("--type", "type", "#q", "first words")
	r = control("--type", "click_text", "Search now")
	if !strings.Contains(pageField(t, r, ".data.url"), "/search?q=first+words") {
		t.Fatalf("submit: %s", r.Stdout)
	}
	if got := readText(); !strings.Contains(got, "results for first words") {
		t.Fatalf("after submit: %q", got)
	}

	// back returns to the form; type and press Enter submits it.
	r = control("--type", "back")
	if pageField(t, r, ".data.url") != srv.URL+"/" {
		t.Fatalf("back: %s", r.Stdout)
	}
	control("--type", "type", "#q", "second try", "--clear")
	r = control("--type", "press", "Enter")
	if !strings.Contains(pageField(t, r, ".data.url"), "q=second+try") {
		t.Fatalf("press Enter: %s", r.Stdout)
	}
	control("--type", "reload")
	if got := readText(); !strings.Contains(got, "results for second try") {
		t.Fatalf("after reload: %q", got)
	}

	// navigate, then wait for an element a script adds later.
	r = control("--type", "navigate", srv.URL+"/")
	if pageField(t, r, ".data.title") != "Start page" {
		t.Fatalf("navigate: %s", r.Stdout)
	}
	control("--type", "click", "#later")
	control("--type", "wait", "#late", "--timeout", "10")
	r = runAW(t, dir, nil, "browser", "control", id, "--type", "wait", "#never", "--timeout", "1")
	if r.Code != 1 || pageField(t, r, ".error.code") != "TIMEOUT" {
		t.Fatalf("wait for a missing element: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "browser", "control", id, "--type", "click", "#absent", "--timeout", "1")
	if pageField(t, r, ".error.code") != "NOT_FOUND" {
		t.Fatalf("click a missing element: %s", r.Stdout)
	}

	// scroll
	r = control("--type", "scroll", "--to", "bottom")
	if y, _ := r.field(t, ".data.scrollY").(float64); y < 1000 {
		t.Fatalf("scroll to bottom: %s", r.Stdout)
	}
	r = control("--type", "scroll", "--to", "top")
	if y, _ := r.field(t, ".data.scrollY").(float64); y != 0 {
		t.Fatalf("scroll to top: %s", r.Stdout)
	}
	r = control("--type", "scroll", "--by", "250")
	if y, _ := r.field(t, ".data.scrollY").(float64); y != 250 {
		t.Fatalf("scroll by 250: %s", r.Stdout)
	}
	r = control("--type", "scroll", "#bottom")
	if y, _ := r.field(t, ".data.scrollY").(float64); y < 1000 {
		t.Fatalf("scroll to a selector: %s", r.Stdout)
	}

	// evaluate: refused until a human turns browser.allowEvaluate on.
	r = runAW(t, dir, nil, "browser", "control", id, "--type", "evaluate", "document.title")
	if pageField(t, r, ".error.code") != "TOOL_DISABLED" || !strings.Contains(pageField(t, r, ".error.message"), "browser.allowEvaluate") {
		t.Fatalf("evaluate without the setting: %s", r.Stdout)
	}
	writeBrowserConfig(t, dir, 2, true, `, "allowEvaluate": true`)
	r = control("--type", "evaluate", "document.title + ' ' + (40 + 2)")
	if r.field(t, ".data.value") != "Start page 42" {
		t.Fatalf("evaluate: %s", r.Stdout)
	}

	// list: live, with the page it is on.
	r = runAW(t, dir, nil, "browser", "list")
	okEnv(t, r, "list")
	if pageField(t, r, ".data.sessions.0.status") != "live" || pageField(t, r, ".data.sessions.0.sessionId") != id {
		t.Fatalf("list: %s", r.Stdout)
	}

	// close: the whole tree ends, the files go.
	r = runAW(t, dir, nil, "browser", "close", id)
	okEnv(t, r, "close")
	if left := chromiumUnder(dir); len(left) > 0 {
		t.Fatalf("Chromium still running after close: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, ".agentic", "browser", id)); !os.IsNotExist(err) {
		t.Fatalf("the profile survived close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".agentic", "browser", id+".json")); !os.IsNotExist(err) {
		t.Fatalf("the session file survived close: %v", err)
	}
	r = runAW(t, dir, nil, "browser", "read", id)
	if pageField(t, r, ".error.code") != "NOT_FOUND" {
		t.Fatalf("read after close: %s", r.Stdout)
	}
}

// TestBrowserGuardWhileAttached: with research.allowPrivateNetwork off,
// a click that navigates to a loopback page is refused by the request
// check (the URL never went through open or navigate).
func TestBrowserGuardWhileAttached(t *testing.T) {
	requireChromium(t)
	srv := site(t)
	dir := browserWorkspace(t, 2, "")
	r := runAW(t, dir, nil, "browser", "open", srv.URL+"/")
	okEnv(t, r, "open")
	id := pageField(t, r, ".data.sessionId")
	defer runAW(t, dir, nil, "browser", "close", id)

	writeBrowserConfig(t, dir, 2, false, "")
	r = runAW(t, dir, nil, "browser", "control", id, "--type", "click_text", "Second page")
	if r.Code == 0 {
		if blocked := fmt.Sprint(r.Env["data"].(map[string]any)["blocked"]); !strings.Contains(blocked, "/second") {
			t.Fatalf("the click reached a loopback page: %s", r.Stdout)
		}
	} else if pageField(t, r, ".error.details.reason") != "private-address" {
		t.Fatalf("click to loopback: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "browser", "read", id)
	okEnv(t, r, "read")
	if strings.Contains(pageField(t, r, ".data.text"), "the second page body") {
		t.Fatalf("the loopback page loaded: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "browser", "control", id, "--type", "navigate", srv.URL+"/second")
	if pageField(t, r, ".error.details.reason") != "private-address" {
		t.Fatalf("navigate to loopback: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "browser", "control", id, "--type", "reload")
	if r.Code == 0 && !strings.Contains(fmt.Sprint(r.Env["data"]), "blocked") {
		t.Fatalf("reload of a loopback page went through: %s", r.Stdout)
	}
}

// TestBrowserGate: control is gated (Manual stages the exact call, Plan
// needs a plan); read, list and close are not. open with a URL is gated
// too (TestBrowserOpenGate), so the session is opened in Auto mode.
func TestBrowserGate(t *testing.T) {
	requireChromium(t)
	srv := site(t)
	dir := browserWorkspace(t, 2, "")
	r := runAW(t, dir, nil, "browser", "open", srv.URL+"/")
	okEnv(t, r, "open in Auto mode")
	id := pageField(t, r, ".data.sessionId")
	defer runAW(t, dir, nil, "browser", "close", id)
	writeBrowserConfig(t, dir, 0, true, "")
	okEnv(t, runAW(t, dir, nil, "browser", "read", id), "read in Manual mode")
	okEnv(t, runAW(t, dir, nil, "browser", "list"), "list in Manual mode")

	r = runAW(t, dir, nil, "browser", "control", id, "--type", "click", "#change")
	if r.Code != 3 || pageField(t, r, ".data.status") != "pending_approval" || pageField(t, r, ".data.approval.kind") != "browser" ||
		pageField(t, r, ".data.approval.resume.tool") != "workspace_browser" ||
		pageField(t, r, ".data.approval.resume.arguments.action") != "control" ||
		pageField(t, r, ".data.approval.resume.arguments.session_id") != id ||
		pageField(t, r, ".data.approval.resume.arguments.type") != "click" ||
		pageField(t, r, ".data.approval.resume.arguments.selector") != "#change" {
		t.Fatalf("Manual control: exit %d %s", r.Code, r.Stdout)
	}
	first := pageField(t, r, ".data.approval.id")
	r = runAW(t, dir, nil, "browser", "control", id, "--type", "click", "#change")
	if pageField(t, r, ".data.approval.id") != first {
		t.Fatalf("re-issued control staged a second approval: %s", r.Stdout)
	}
	// The staged call did nothing.
	r = runAW(t, dir, nil, "browser", "read", id)
	if strings.Contains(pageField(t, r, ".data.text"), "changed by the button") {
		t.Fatal("a staged click ran")
	}

	writeBrowserConfig(t, dir, 1, true, "")
	r = runAW(t, dir, nil, "browser", "control", id, "--type", "click", "#change")
	if pageField(t, r, ".error.code") != "APPROVAL_REQUIRED" {
		t.Fatalf("Plan control: %s", r.Stdout)
	}
	writeBrowserConfig(t, dir, 2, true, "")
	okEnv(t, runAW(t, dir, nil, "browser", "control", id, "--type", "click", "#change"), "Auto control")
}

// TestBrowserListDeadAndReap: list tells a killed Chromium from a live
// one; close removes a dead session's files; a session idle past the
// limit is ended by the next browser call.
func TestBrowserListDeadAndReap(t *testing.T) {
	requireChromium(t)
	dir := browserWorkspace(t, 2, "")
	a := runAW(t, dir, nil, "browser", "open")
	okEnv(t, a, "open a")
	b := runAW(t, dir, nil, "browser", "open")
	okEnv(t, b, "open b")
	idA, idB := pageField(t, a, ".data.sessionId"), pageField(t, b, ".data.sessionId")

	var sessA browser.Session
	raw, _ := os.ReadFile(filepath.Join(dir, ".agentic", "browser", idA+".json"))
	json.Unmarshal(raw, &sessA)
	syscall.Kill(-sessA.Pid, syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for len(browser.Leftovers(sessA.Pid, sessA.UserDataDir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}

	r := runAW(t, dir, nil, "browser", "list")
	okEnv(t, r, "list")
	status := map[string]string{}
	for _, s := range r.field(t, ".data.sessions").([]any) {
		m := s.(map[string]any)
		status[m["sessionId"].(string)] = m["status"].(string)
	}
	if status[idA] != "dead" || status[idB] != "live" {
		t.Fatalf("list after killing %s: %v", idA, status)
	}
	r = runAW(t, dir, nil, "browser", "read", idA)
	if pageField(t, r, ".error.code") != "NOT_FOUND" || !strings.Contains(pageField(t, r, ".error.message"), "dead") {
		t.Fatalf("read of a dead session: %s", r.Stdout)
	}
	r = runAW(t, dir, nil, "browser", "close", idA)
	okEnv(t, r, "close dead")
	if r.field(t, ".data.wasAlive") != false {
		t.Fatalf("close dead: %s", r.Stdout)
	}

	// Make b look idle for an hour with its watchdog killed: the next
	// call ends it all the same.
	path := filepath.Join(dir, ".agentic", "browser", idB+".json")
	var sessB map[string]any
	raw, _ = os.ReadFile(path)
	json.Unmarshal(raw, &sessB)
	watchdog, _ := sessB["watchdogPid"].(float64)
	if watchdog <= 0 {
		t.Fatalf("session %s has no watchdog: %s", idB, raw)
	}
	syscall.Kill(int(watchdog), syscall.SIGKILL)
	sessB["lastUsedAt"] = time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	raw, _ = json.Marshal(sessB)
	os.WriteFile(path, raw, 0o600)
	r = runAW(t, dir, nil, "browser", "list")
	okEnv(t, r, "list after idle")
	if fmt.Sprint(r.field(t, ".data.reaped")) != "["+idB+"]" || len(r.field(t, ".data.sessions").([]any)) != 0 {
		t.Fatalf("idle session not reaped: %s", r.Stdout)
	}
	if left := chromiumUnder(dir); len(left) > 0 {
		t.Fatalf("reaped session's Chromium still runs: %v", left)
	}
}

// BenchmarkBrowser reports the two figures issue 6 asks for: open to a
// readable page, and a read of an open session (each a whole aw process).
func BenchmarkBrowserOpen(b *testing.B) {
	requireChromium(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Bench</title><p>some text</p><a href="/x">x</a>`)
	}))
	defer srv.Close()
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 2, "research": {"allowPrivateNetwork": true}, "browser": {"enabled": true}}`), 0o644)
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			r := runAW(b, dir, nil, "browser", "open", srv.URL+"/")
			b.StopTimer()
			runAW(b, dir, nil, "browser", "close", r.Env["data"].(map[string]any)["sessionId"].(string))
			b.StartTimer()
		}
	})
	r := runAW(b, dir, nil, "browser", "open", srv.URL+"/")
	id := r.Env["data"].(map[string]any)["sessionId"].(string)
	defer runAW(b, dir, nil, "browser", "close", id)
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			runAW(b, dir, nil, "browser", "read", id)
		}
	})
}
