package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/internal/testenv"
)

// needGopls stops the test without the pinned gopls (scripts/test-deps
// installs it where go install puts tools, GOPATH/bin, which is put on the
// PATH of the aw processes the tests start).
func needGopls(t testing.TB) {
	t.Helper()
	goplsOnce.Do(func() {
		if _, err := exec.LookPath("gopls"); err == nil {
			return
		}
		bin := filepath.Join(os.Getenv("GOPATH"), "bin")
		if _, err := os.Stat(filepath.Join(bin, "gopls")); err == nil && os.Getenv("GOPATH") != "" {
			os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
	})
	testenv.Need(t, "gopls", "scripts/test-deps installs it: go install golang.org/x/tools/gopls@v0.23.0")
}

var goplsOnce sync.Once

// goModule writes a small Go module in a fresh workspace (Auto mode, so
// commits run) and stops its broker when the test ends.
func lspModule(t testing.TB, config string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"main.go": `package main

import "fmt"

// Greeter says hello.
type Greeter interface {
	Greet(name string) string
}

type english struct{}

func (english) Greet(name string) string { return "hello " + name }

func main() {
	var g Greeter = english{}
	fmt.Println(g.Greet("world"))
	fmt.Println(helper(2), helper(3))
}
`,
		"util.go":              "package main\n\n// helper doubles n.\nfunc helper(n int) int { return n * 2 }\n",
		".agentic/config.json": `{"permissionMode": 2` + config + `}`,
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { stopBroker(dir) })
	return dir
}

// stopBroker ends dir's broker, whatever state the test left it in.
func stopBroker(dir string) {
	cmd := exec.Command(awBin, "broker", "stop")
	cmd.Dir = dir
	cmd.Run()
	if rec, ok := readBrokerRecord(dir); ok {
		syscall.Kill(rec.Pid, syscall.SIGKILL)
	}
}

func readBrokerRecord(dir string) (broker.Record, bool) {
	var rec broker.Record
	raw, err := os.ReadFile(filepath.Join(dir, ".agentic", "broker", "broker.json"))
	return rec, err == nil && json.Unmarshal(raw, &rec) == nil && rec.Pid > 0
}

// brokerStatus returns the running broker's pid and its held resources' pids.
func brokerStatus(t *testing.T, dir string) (int, []int) {
	t.Helper()
	r := lspRun(t, dir, "broker", "status")
	okEnv(t, r, "broker status")
	if r.field(t, ".data.running") != true {
		return 0, nil
	}
	var held []int
	for _, h := range r.field(t, ".data.held").([]any) {
		if pid, ok := h.(map[string]any)["pid"].(float64); ok {
			held = append(held, int(pid)) // a process (a tree watch has none)
		}
	}
	return int(r.field(t, ".data.pid").(float64)), held
}

func pidGone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

func wantCode(t *testing.T, r Result, code string) {
	t.Helper()
	if r.Env["ok"] != false {
		t.Fatalf("want %s, got ok: %s", code, r.Stdout)
	}
	if got := r.field(t, ".error.code"); got != code {
		t.Fatalf("error.code %v, want %s: %s", got, code, r.Stdout)
	}
}

// TestLSPQueries: definition, references, hover, symbols, implementation
// and type-definition against gopls on a real module, with
// workspace-relative paths, lines and excerpts.
func TestLSPQueries(t *testing.T) {
	needGopls(t)
	dir := lspModule(t, "")
	r := lspRun(t, dir, "lsp", "definition", "main.go", "17", "helper")
	okEnv(t, r, "definition")
	loc := r.field(t, ".data.locations.0").(map[string]any)
	if loc["path"] != "util.go" || loc["line"] != 4.0 || !strings.Contains(loc["excerpt"].(string), "func helper") {
		t.Fatalf("definition of helper: %v", loc)
	}
	r = lspRun(t, dir, "lsp", "references", "util.go", "4", "helper")
	okEnv(t, r, "references")
	if r.field(t, ".data.total") != 3.0 {
		t.Fatalf("references of helper (declaration and two uses): %s", r.Stdout)
	}
	r = lspRun(t, dir, "lsp", "hover", "util.go", "4", "helper")
	okEnv(t, r, "hover")
	if text := r.field(t, ".data.text").(string); !strings.Contains(text, "func helper(n int) int") || !strings.Contains(text, "helper doubles n") {
		t.Fatalf("hover: %q", text)
	}
	r = lspRun(t, dir, "lsp", "symbols", "main.go")
	okEnv(t, r, "document symbols")
	var names []string
	for _, s := range r.field(t, ".data.symbols").([]any) {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "Greeter,Greet,english,(english).Greet,main" {
		t.Fatalf("document symbols: %v", names)
	}
	r = lspRun(t, dir, "lsp", "symbols", "--query", "Greeter")
	okEnv(t, r, "workspace symbols")
	if s := r.field(t, ".data.symbols.0").(map[string]any); s["name"] != "Greeter" || s["path"] != "main.go" || s["line"] != 6.0 {
		t.Fatalf("workspace symbol: %v", s)
	}
	r = lspRun(t, dir, "lsp", "implementation", "main.go", "6", "Greeter")
	okEnv(t, r, "implementation")
	if l := r.field(t, ".data.locations.0").(map[string]any); l["path"] != "main.go" || l["line"] != 10.0 {
		t.Fatalf("implementation of Greeter: %v", l)
	}
	r = lspRun(t, dir, "lsp", "type-definition", "main.go", "15", "g")
	okEnv(t, r, "type-definition")
	if l := r.field(t, ".data.locations.0").(map[string]any); l["line"] != 6.0 {
		t.Fatalf("type of g: %v", l)
	}
	r = lspRun(t, dir, "lsp", "diagnostics", "main.go")
	okEnv(t, r, "diagnostics")
	if n := len(r.field(t, ".data.diagnostics").([]any)); n != 0 {
		t.Fatalf("a clean module has diagnostics: %s", r.Stdout)
	}
}

// TestLSPPositionRefusals: a position is a line and a symbol on it; every
// other form is refused with what to do, before any server starts.
func TestLSPPositionRefusals(t *testing.T) {
	dir := lspModule(t, "")
	r := lspRun(t, dir, "lsp", "definition", "main.go", "17")
	wantCode(t, r, "INVALID_INPUT")
	if !strings.Contains(r.field(t, ".error.message").(string), "never a column") {
		t.Fatalf("missing symbol: %s", r.Stdout)
	}
	r = lspRun(t, dir, "lsp", "definition", "main.go", "17", "nothere")
	wantCode(t, r, "NOT_FOUND")
	if !strings.Contains(r.field(t, ".error.message").(string), "fmt.Println(helper(2), helper(3))") {
		t.Fatalf("a symbol not on the line must name what the line holds: %s", r.Stdout)
	}
	wantCode(t, lspRun(t, dir, "lsp", "hover", "main.go", "x", "helper"), "INVALID_INPUT")
	wantCode(t, lspRun(t, dir, "lsp", "hover", "main.go", "99", "helper"), "NOT_FOUND")
	wantCode(t, lspRun(t, dir, "lsp", "hover", "../outside.go", "1", "x"), "PATH_ESCAPE")
	wantCode(t, lspRun(t, dir, "lsp", "symbols"), "INVALID_INPUT")
	wantCode(t, lspRun(t, dir, "lsp", "rename", "util.go", "4", "helper", " "), "INVALID_INPUT")
	wantCode(t, lspRun(t, dir, "--tier", "read", "lsp", "rename", "util.go", "4", "helper", "double"), "TOOL_DISABLED")
	if pid, _ := brokerStatus(t, dir); pid != 0 {
		t.Fatalf("a refused call started a broker (pid %d)", pid)
	}
}

// TestLSPMissingServer: without gopls on PATH, status says why and a
// query is NOT_FOUND saying the same; a file with no marker likewise.
func TestLSPMissingServer(t *testing.T) {
	dir := lspModule(t, "")
	env := []string{"PATH=" + filepath.Dir(awBin) + ":/usr/bin:/bin"}
	if _, err := exec.LookPath("/usr/bin/gopls"); err == nil {
		t.Skip("gopls is installed in /usr/bin")
	}
	r := runAWEnv(t, dir, nil, env, "lsp", "status")
	okEnv(t, r, "status")
	var gopls map[string]any
	for _, s := range r.field(t, ".data.servers").([]any) {
		if m := s.(map[string]any); m["name"] == "gopls" {
			gopls = m
		}
	}
	if gopls["available"] != false || !strings.Contains(gopls["reason"].(string), "gopls is not on PATH") {
		t.Fatalf("status of a missing gopls: %v", gopls)
	}
	r = runAWEnv(t, dir, nil, env, "lsp", "definition", "main.go", "17", "helper")
	wantCode(t, r, "NOT_FOUND")
	if !strings.Contains(r.field(t, ".error.message").(string), "not on PATH") {
		t.Fatalf("missing server: %s", r.Stdout)
	}
	writeFile(t, filepath.Join(dir, "py", "a.py"), "x = 1\n")
	r = runAWEnv(t, dir, nil, env, "lsp", "hover", "py/a.py", "1", "x")
	wantCode(t, r, "NOT_FOUND")
	if !strings.Contains(r.field(t, ".error.message").(string), "root marker") {
		t.Fatalf("no root marker: %s", r.Stdout)
	}
}

// TestLSPRenameTransaction: rename is a planned transaction; the commit
// writes every file and the module still builds; a file changed after the
// preview fails the commit stale.
func TestLSPRenameTransaction(t *testing.T) {
	needGopls(t)
	goBin := testenv.Need(t, "go", "install Go")
	dir := lspModule(t, "")
	r := lspRun(t, dir, "lsp", "rename", "util.go", "4", "helper", "double")
	okEnv(t, r, "rename")
	if r.field(t, ".data.status") != "planned" || r.field(t, ".data.fileCount") != 2.0 {
		t.Fatalf("rename preview: %s", r.Stdout)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, "util.go")); !strings.Contains(string(raw), "func helper") {
		t.Fatal("a rename preview changed the file")
	}
	tx := r.field(t, ".data.transactionId").(string)
	okEnv(t, lspRun(t, dir, "edit", "commit", tx), "commit")
	main, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if !strings.Contains(string(main), "double(2), double(3)") {
		t.Fatalf("main.go after the rename:\n%s", main)
	}
	build := exec.Command(goBin, "build", "./...")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the module does not build after the rename: %v\n%s", err, out)
	}
	// Stale: preview, then the file changes, then commit.
	r = lspRun(t, dir, "lsp", "rename", "util.go", "4", "double", "twice")
	okEnv(t, r, "second rename")
	tx = r.field(t, ".data.transactionId").(string)
	writeFile(t, filepath.Join(dir, "util.go"), "package main\n\n// double doubles n.\nfunc double(n int) int { return n + n }\n")
	r = lspRun(t, dir, "edit", "commit", tx)
	wantCode(t, r, "EDIT_CONFLICT")
}

// TestDiagnosticsOnWrite: an edit that breaks the build reports the new
// error in its envelope; an unrelated edit after it does not report it
// again; lsp.diagnosticsOnWrite false folds nothing. Both with gopls
// pushing its diagnostics (its default) and with aw pulling them
// (textDocument/diagnostic, which gopls offers with pullDiagnostics).
func TestDiagnosticsOnWrite(t *testing.T) {
	needGopls(t)
	pull := `"servers": [{"name": "gopls", "command": "gopls", "languages": ["go"], "rootMarkers": ["go.mod"], "checker": ["go", "vet", "./..."], "initializationOptions": {"pullDiagnostics": true}}], `
	for _, mode := range []string{"pushed", "pulled"} {
		t.Run(mode, func(t *testing.T) {
			servers := ""
			if mode == "pulled" {
				servers = pull
			}
			// The test binary's home is new, so gopls's caches are cold: its first
			// diagnostics may take longer than the default wait.
			dir := lspModule(t, `, "lsp": {`+servers+`"diagnosticsWaitMs": 30000}`)
			warmUp(t, dir, "util.go")
			if r := lspRun(t, dir, "lsp", "diagnostics", "util.go"); r.field(t, ".data.mode") != mode {
				t.Fatalf("diagnostics are not %s: %s", mode, r.Stdout)
			}
			r := lspRun(t, dir, "edit", "apply", "--op", `{"type":"replace","path":"util.go","search":"return n * 2","replacement":"return n * \"x\""}`)
			okEnv(t, r, "breaking edit")
			news := r.field(t, ".data.diagnostics.new").([]any)
			if len(news) != 1 || !strings.Contains(news[0].(map[string]any)["message"].(string), "mismatched types") {
				t.Fatalf("the broken build is not reported: %s", r.Stdout)
			}
			if !strings.Contains(strings.Join(factsOf(t, r), "\n"), "1 new diagnostics") {
				t.Fatalf("facts: %v", factsOf(t, r))
			}
			// '*' runs the project checker (go vet) over the whole module.
			r = lspRun(t, dir, "lsp", "diagnostics", "*")
			okEnv(t, r, "diagnostics *")
			if r.field(t, ".data.mode") != "checker" || r.field(t, ".data.diagnostics.0.path") != "util.go" {
				t.Fatalf("the checker does not report the broken build: %s", r.Stdout)
			}
			r = lspRun(t, dir, "edit", "apply", "--op", `{"type":"replace","path":"util.go","search":"// helper doubles n.","replacement":"// helper doubles n, badly."}`)
			okEnv(t, r, "unrelated edit")
			if n := len(r.field(t, ".data.diagnostics.new").([]any)); n != 0 || r.field(t, ".data.diagnostics.suppressed") != 1.0 {
				t.Fatalf("an old diagnostic was reported again: %s", r.Stdout)
			}
			okEnv(t, lspRun(t, dir, "edit", "apply", "--op", `{"type":"replace","path":"util.go","search":"return n * \"x\"","replacement":"return n * 2"}`), "fix")
			os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode": 2, "lsp": {`+servers+`"diagnosticsOnWrite": false, "diagnosticsWaitMs": 30000}}`), 0o644)
			r = lspRun(t, dir, "edit", "apply", "--op", `{"type":"replace","path":"util.go","search":"return n * 2","replacement":"return n * \"y\""}`)
			okEnv(t, r, "edit with diagnostics off")
			if _, ok := r.Env["data"].(map[string]any)["diagnostics"]; ok {
				t.Fatalf("diagnostics folded while lsp.diagnosticsOnWrite is false: %s", r.Stdout)
			}
		})
	}
}

// warmUp asks for file's diagnostics until the server's answer settles.
func warmUp(t *testing.T, dir, file string) {
	t.Helper()
	for i := 0; i < 10; i++ {
		r := lspRun(t, dir, "lsp", "diagnostics", file)
		okEnv(t, r, "warm up")
		if r.field(t, ".data.settled") == true {
			return
		}
	}
	t.Fatalf("the diagnostics of %s never settled", file)
}

// TestDiagnosticsNeverFailAWrite: with a server that cannot start, the
// write succeeds and says why diagnostics are unavailable.
func TestDiagnosticsNeverFailAWrite(t *testing.T) {
	dir := lspModule(t, `, "lsp": {"diagnosticsWaitMs": 2000, "servers": [{"name": "gopls", "command": "false", "languages": ["go"], "rootMarkers": ["go.mod"]}]}`)
	r := lspRun(t, dir, "edit", "apply", "--op", `{"type":"replace","path":"util.go","search":"return n * 2","replacement":"return n * 3"}`)
	okEnv(t, r, "edit")
	if r.field(t, ".data.diagnostics.available") != false || r.field(t, ".data.diagnostics.reason") == "" {
		t.Fatalf("a broken server must leave the write ok and say why: %s", r.Stdout)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, "util.go")); !strings.Contains(string(raw), "n * 3") {
		t.Fatal("the write did not land")
	}
}

// TestBrokerReplacedAfterKill: a broker killed with SIGKILL takes its
// server with it, and the next call starts a new broker that answers.
func TestBrokerReplacedAfterKill(t *testing.T) {
	needGopls(t)
	testenv.NeedProc(t)
	dir := lspModule(t, "")
	okEnv(t, lspRun(t, dir, "lsp", "definition", "main.go", "17", "helper"), "first call")
	pid, held := brokerStatus(t, dir)
	if pid == 0 || len(held) != 1 {
		t.Fatalf("no broker holding gopls after a call: pid %d, held %v", pid, held)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if !pidGone(pid, 5*time.Second) {
		t.Fatal("the killed broker still runs")
	}
	if !pidGone(held[0], 5*time.Second) {
		t.Fatalf("the killed broker's server (pid %d) outlived it", held[0])
	}
	okEnv(t, lspRun(t, dir, "lsp", "definition", "main.go", "17", "helper"), "call after the kill")
	if next, _ := brokerStatus(t, dir); next == 0 || next == pid {
		t.Fatalf("no new broker after the kill: %d (old %d)", next, pid)
	}
}

// TestBrokerConcurrentCalls: ten calls at once, with no broker running,
// all answer and share one broker.
func TestBrokerConcurrentCalls(t *testing.T) {
	needGopls(t)
	testenv.NeedProc(t)
	dir := lspModule(t, "")
	var wg sync.WaitGroup
	results := make([]Result, 10)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = lspRun(t, dir, "lsp", "definition", "main.go", "17", "helper")
		}()
	}
	wg.Wait()
	for i, r := range results {
		okEnv(t, r, fmt.Sprintf("call %d", i))
	}
	pid, held := brokerStatus(t, dir)
	if pid == 0 || len(held) != 1 {
		t.Fatalf("want one broker holding one gopls: pid %d, held %v", pid, held)
	}
	if n := brokersOf(dir); n != 1 {
		t.Fatalf("%d broker processes for one workspace", n)
	}
}

// brokersOf counts the living `aw broker serve` processes for root.
func brokersOf(root string) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		raw, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(string(raw), "\x00")
		if len(args) >= 5 && args[1] == "--root" && args[2] == root && args[3] == "broker" && args[4] == "serve" {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			if processAlive(pid) {
				n++
			}
		}
	}
	return n
}

// TestBrokerIdleExit: after broker.idleSeconds without a call the broker
// exits by itself, its server with it, and inspect capabilities lists it
// while it runs.
func TestBrokerIdleExit(t *testing.T) {
	needGopls(t)
	testenv.NeedProc(t)
	dir := lspModule(t, `, "broker": {"idleSeconds": 2}`)
	okEnv(t, lspRun(t, dir, "lsp", "hover", "util.go", "4", "helper"), "call")
	pid, held := brokerStatus(t, dir)
	r := lspRun(t, dir, "inspect", "capabilities")
	if !strings.Contains(string(r.Stdout), fmt.Sprintf(`"kind":"broker","id":"broker","pid":%d`, pid)) {
		t.Fatalf("capabilities do not list the broker: %s", r.Stdout)
	}
	if !pidGone(pid, 2*time.Second+3*broker.CheckInterval+5*time.Second) {
		t.Fatal("the idle broker did not exit")
	}
	if !pidGone(held[0], 5*time.Second) {
		t.Fatal("the idle broker's server outlived it")
	}
	if _, ok := readBrokerRecord(dir); ok {
		t.Fatal("the idle broker left its record")
	}
}

// TestBrokerEndsWithItsWorkspace: removing .agentic/ ends the broker.
func TestBrokerEndsWithItsWorkspace(t *testing.T) {
	needGopls(t)
	testenv.NeedProc(t)
	dir := lspModule(t, "")
	okEnv(t, lspRun(t, dir, "lsp", "hover", "util.go", "4", "helper"), "call")
	pid, held := brokerStatus(t, dir)
	os.RemoveAll(filepath.Join(dir, ".agentic"))
	if !pidGone(pid, 3*broker.CheckInterval+5*time.Second) || !pidGone(held[0], 5*time.Second) {
		t.Fatal("the broker outlived its workspace's .agentic/")
	}
}

// TestBrokerVersionReplaced: an aw of another build replaces the running
// broker instead of talking to it.
func TestBrokerVersionReplaced(t *testing.T) {
	needGopls(t)
	testenv.NeedProc(t)
	dir := lspModule(t, "")
	okEnv(t, lspRun(t, dir, "lsp", "hover", "util.go", "4", "helper"), "call")
	old, _ := brokerStatus(t, dir)
	other := filepath.Join(t.TempDir(), "aw")
	raw, err := os.ReadFile(awBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	r := runBinEnv(t, other, dir, nil, cacheEnv(), "lsp", "hover", "util.go", "4", "helper")
	okEnv(t, r, "call of another build")
	if !pidGone(old, 5*time.Second) {
		t.Fatal("the older broker still runs")
	}
	r = runBinEnv(t, other, dir, nil, cacheEnv(), "broker", "status")
	if id, _ := r.field(t, ".data.identity").(string); !strings.Contains(id, other) {
		t.Fatalf("the new broker is not of the other build: %s", r.Stdout)
	}
	// And the first build takes it back.
	okEnv(t, lspRun(t, dir, "lsp", "hover", "util.go", "4", "helper"), "call of the first build")
}

// TestBrokerStopAndStatus: status and stop with no broker are declared
// no-ops; stop ends a running one and its server.
func TestBrokerStopAndStatus(t *testing.T) {
	dir := lspModule(t, "")
	r := lspRun(t, dir, "broker", "status")
	okEnv(t, r, "status")
	if r.field(t, ".data.running") != false {
		t.Fatalf("status started a broker: %s", r.Stdout)
	}
	r = lspRun(t, dir, "broker", "stop")
	okEnv(t, r, "stop")
	if !strings.Contains(r.field(t, ".summary").(string), "not running") {
		t.Fatalf("stop of nothing: %s", r.Stdout)
	}
	wantCode(t, lspRun(t, dir, "--tier", "read", "broker", "stop"), "TOOL_DISABLED")
	needGopls(t)
	okEnv(t, lspRun(t, dir, "lsp", "hover", "util.go", "4", "helper"), "call")
	pid, held := brokerStatus(t, dir)
	okEnv(t, lspRun(t, dir, "broker", "stop"), "stop")
	if processAlive(pid) || !pidGone(held[0], 5*time.Second) {
		t.Fatal("stop left the broker or its server running")
	}
}

// needNpmServer stops the test without the npm-installed server bin
// (scripts/test-deps puts pyright and typescript-language-server under
// GOPATH/aw-test-tools/npm), putting that directory on PATH when needed.
func needNpmServer(t *testing.T, bin string) string {
	t.Helper()
	npmOnce.Do(func() {
		dir := filepath.Join(os.Getenv("GOPATH"), "aw-test-tools", "npm", "node_modules", ".bin")
		if _, err := os.Stat(dir); err == nil && os.Getenv("GOPATH") != "" {
			os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
	})
	testenv.Need(t, "node", "apt-get install nodejs npm")
	return testenv.Need(t, bin, "scripts/test-deps installs it with npm (pyright@1.1.414, typescript-language-server@5.1.3)")
}

var npmOnce sync.Once

// TestLSPOtherServers: pyright and typescript-language-server answer
// definition, references and hover, rename as a committed transaction
// after which the project still checks, and fold a newly broken call into
// an edit's envelope.
func TestLSPOtherServers(t *testing.T) {
	cases := []struct {
		name, bin, marker, defFile, useFile, broken, fixed string
		files                                              map[string]string
		check                                              []string // after the rename: the project still checks
	}{
		{name: "pyright", bin: "pyright-langserver", marker: "pyproject.toml",
			files: map[string]string{
				"pyproject.toml": "",
				"util.py":        "def double(n: int) -> int:\n    \"\"\"Double n.\"\"\"\n    return n * 2\n",
				"app.py":         "from util import double\n\n\ndef main() -> None:\n    print(double(2))\n",
			},
			defFile: "util.py", useFile: "app.py", broken: `double(\"x\")`, fixed: "double(2)",
			check: []string{"python3", "-m", "py_compile", "util.py", "app.py"}},
		{name: "typescript", bin: "typescript-language-server", marker: "tsconfig.json",
			files: map[string]string{
				"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`,
				"util.ts":       "/** Doubles n. */\nexport function double(n: number): number {\n  return n * 2;\n}\n",
				"app.ts":        "import { double } from \"./util\";\n\nconsole.log(double(2));\n",
			},
			defFile: "util.ts", useFile: "app.ts", broken: `double(\"x\")`, fixed: "double(2)",
			check: []string{"tsc", "-p", "."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			needNpmServer(t, c.bin)
			dir := lspModule(t, `, "lsp": {"diagnosticsWaitMs": 30000}`)
			os.Remove(filepath.Join(dir, "go.mod"))
			for name, content := range c.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			useLine := map[string]string{"pyright": "5", "typescript": "3"}[c.name]
			defLine := map[string]string{"pyright": "1", "typescript": "2"}[c.name]
			r := lspRun(t, dir, "lsp", "definition", c.useFile, useLine, "double")
			okEnv(t, r, "definition")
			if p := r.field(t, ".data.locations.0.path"); p != c.defFile && p != c.useFile {
				t.Fatalf("definition of double: %s", r.Stdout)
			}
			r = lspRun(t, dir, "lsp", "references", c.defFile, defLine, "double")
			okEnv(t, r, "references")
			if n := r.field(t, ".data.total").(float64); n < 2 {
				t.Fatalf("references of double: %s", r.Stdout)
			}
			r = lspRun(t, dir, "lsp", "hover", c.defFile, defLine, "double")
			okEnv(t, r, "hover")
			if text := r.field(t, ".data.text").(string); !strings.Contains(text, "Double") {
				t.Fatalf("hover without the doc comment: %q", text)
			}
			r = lspRun(t, dir, "edit", "apply", "--op", fmt.Sprintf(`{"type":"replace","path":%q,"search":%q,"replacement":"%s"}`, c.useFile, c.fixed, c.broken))
			okEnv(t, r, "breaking edit")
			if news, _ := r.field(t, ".data.diagnostics.new").([]any); len(news) == 0 {
				t.Fatalf("the broken call is not reported: %s", r.Stdout)
			}
			r = lspRun(t, dir, "lsp", "diagnostics", "*")
			okEnv(t, r, "diagnostics *")
			if r.field(t, ".data.diagnostics.0.path") != c.useFile {
				t.Fatalf("the project checker does not report the broken call: %s", r.Stdout)
			}
			okEnv(t, lspRun(t, dir, "edit", "apply", "--op", fmt.Sprintf(`{"type":"replace","path":%q,"search":"%s","replacement":%q}`, c.useFile, c.broken, c.fixed)), "fix")
			r = lspRun(t, dir, "lsp", "rename", c.defFile, defLine, "double", "twice")
			okEnv(t, r, "rename")
			okEnv(t, lspRun(t, dir, "edit", "commit", r.field(t, ".data.transactionId").(string)), "commit")
			use, _ := os.ReadFile(filepath.Join(dir, c.useFile))
			if !strings.Contains(string(use), "twice(2)") {
				t.Fatalf("%s after the rename:\n%s", c.useFile, use)
			}
			if _, err := exec.LookPath(c.check[0]); err == nil {
				check := exec.Command(c.check[0], c.check[1:]...)
				check.Dir = dir
				if out, err := check.CombinedOutput(); err != nil {
					t.Fatalf("%v after the rename: %v\n%s", c.check, err, out)
				}
			}
		})
	}
}

// TestBrokerHungReplaced: a broker that stopped answering (SIGSTOP) is
// stale state: the next call ends it and starts a new one.
func TestBrokerHungReplaced(t *testing.T) {
	needGopls(t)
	testenv.NeedProc(t)
	dir := lspModule(t, "")
	okEnv(t, lspRun(t, dir, "lsp", "hover", "util.go", "4", "helper"), "call")
	pid, _ := brokerStatus(t, dir)
	syscall.Kill(pid, syscall.SIGSTOP)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	okEnv(t, lspRun(t, dir, "lsp", "hover", "util.go", "4", "helper"), "call with the broker hung")
	if !pidGone(pid, 5*time.Second) {
		t.Fatal("the hung broker was left running")
	}
	if next, _ := brokerStatus(t, dir); next == 0 || next == pid {
		t.Fatalf("no new broker: %d", next)
	}
}

// lspRun is runAW with the user's cache directory: the sandbox keeps the
// toolchain and gopls caches there, and a cold one (the test binary's own
// home) costs a language server or go vet minutes on two loaded cores.
func lspRun(t testing.TB, dir string, args ...string) Result {
	t.Helper()
	return runAWEnv(t, dir, nil, cacheEnv(), args...)
}

// cacheEnv points XDG_CACHE_HOME at the directory holding GOCACHE (the
// user's cache directory, which the test binary keeps for the go command).
func cacheEnv() []string {
	if c := os.Getenv("GOCACHE"); filepath.Base(c) == "go-build" {
		return []string{"XDG_CACHE_HOME=" + filepath.Dir(c)}
	}
	return nil
}

// A command that rewrote a file the server has open: the broker re-reads
// it, and its new error is folded into the run's envelope.
func TestDiagnosticsAfterCommand(t *testing.T) {
	needGopls(t)
	dir := lspModule(t, `, "commands": {"interpreter": "sh", "allow": ["printf"]}, "lsp": {"diagnosticsWaitMs": 30000}`)
	warmUp(t, dir, "util.go")
	r := lspRun(t, dir, "command", "run", "--line", `printf 'package main\n\nfunc helper(n int) int { return n * "x" }\n' > util.go`)
	okEnv(t, r, "command run")
	if got := r.field(t, ".data.changes.paths.0.path"); got != "util.go" {
		t.Fatalf("changes: %s", r.Stdout)
	}
	if files := r.field(t, ".data.diagnostics.files").([]any); len(files) != 1 || files[0] != "util.go" {
		t.Fatalf("diagnostics did not look at the changed file: %s", r.Stdout)
	}
	news, _ := r.field(t, ".data.diagnostics.new").([]any)
	if len(news) == 0 || news[0].(map[string]any)["path"] != "util.go" {
		t.Fatalf("the rewritten file's error is not reported: %s", r.Stdout)
	}
}

// TestLSPPerCall: with broker.mode per-call no background process runs:
// each lsp call starts its server and ends it, a write folds no
// diagnostics, and the debugger (which needs the broker) says why not.
func TestLSPPerCall(t *testing.T) {
	needGopls(t)
	testenv.NeedProc(t)
	dir := lspModule(t, `, "broker": {"mode": "per-call"}, "commands": {"allow": ["go", "dlv"]}`)
	r := lspRun(t, dir, "lsp", "definition", "main.go", "17", "helper")
	okEnv(t, r, "definition per call")
	if loc := r.field(t, ".data.locations.0").(map[string]any); loc["path"] != "util.go" || loc["line"] != 4.0 {
		t.Fatalf("definition of helper: %v", loc)
	}
	if left := goneUnder(dir, 5*time.Second); len(left) > 0 {
		t.Fatalf("the call's server outlived it: %v", left)
	}
	if r = lspRun(t, dir, "broker", "status"); r.field(t, ".data.running") != false {
		t.Fatalf("a broker runs in per-call mode: %s", r.Stdout)
	}
	r = lspRun(t, dir, "edit", "apply", "--op", `{"type":"replace","path":"util.go","search":"return n * 2","replacement":"return n * \"x\""}`)
	okEnv(t, r, "edit")
	if _, ok := r.Env["data"].(map[string]any)["diagnostics"]; ok {
		t.Fatalf("a per-call write folded diagnostics: %s", r.Stdout)
	}
	r = lspRun(t, dir, "debug", "breakpoints", "main.go", "16")
	wantCode(t, r, "TOOL_DISABLED")
	if r.field(t, ".error.details.setting") != "broker.mode" {
		t.Fatalf("the refusal does not name the setting: %s", r.Stdout)
	}
}
