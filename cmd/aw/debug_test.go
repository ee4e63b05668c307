package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/internal/testenv"
)

// needDlv stops the test without delve (scripts/test-deps installs the
// pinned one with go install, into GOPATH/bin, which goes on the PATH of
// the aw processes: the command policy judges dlv by the PATH).
func needDlv(t testing.TB) {
	t.Helper()
	dlvOnce.Do(func() {
		if _, err := exec.LookPath("dlv"); err == nil {
			return
		}
		for _, gp := range []string{os.Getenv("GOPATH"), filepath.Join(os.Getenv("HOME"), "go")} {
			bin := filepath.Join(gp, "bin")
			if _, err := os.Stat(filepath.Join(bin, "dlv")); err == nil && gp != "" {
				os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
				return
			}
		}
	})
	testenv.Need(t, "dlv", "scripts/test-deps installs it: go install github.com/go-delve/delve/cmd/dlv@v1.27.2")
}

var dlvOnce sync.Once

// debugpyPath is a PATH whose python3 imports debugpy (Debian's
// python3-debugpy is for /usr/bin/python3, which another python3 earlier
// on PATH would shadow), or the test stops.
func debugpyPath(t testing.TB) string {
	t.Helper()
	path := os.Getenv("PATH")
	if p, err := exec.LookPath("python3"); err == nil && exec.Command(p, "-c", "import debugpy").Run() == nil {
		return path
	}
	if exec.Command("/usr/bin/python3", "-c", "import debugpy").Run() == nil {
		return "/usr/bin" + string(os.PathListSeparator) + path
	}
	testenv.Missing(t, "debugpy", "scripts/test-deps installs it: apt-get install python3-debugpy")
	return ""
}

const debugGoMain = `package main

import "fmt"

func add(a, b int) int {
	sum := a + b
	return sum
}

func main() {
	items := []string{"x", "y", "z"}
	total := add(2, 3)
	fmt.Println("total", total, len(items))
	fmt.Println("done")
}
`

// debugWorkspace writes files and a config (Auto mode unless the config
// says otherwise) into a fresh workspace whose broker ends with the test.
func debugWorkspace(t testing.TB, config string, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files[".agentic/config.json"] = config
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

func goDebugWorkspace(t testing.TB, config string) string {
	if config == "" {
		config = `{"permissionMode": 2, "commands": {"allow": ["go", "dlv"]}}`
	}
	return debugWorkspace(t, config, map[string]string{"go.mod": "module example.com/hello\n\ngo 1.22\n", "main.go": debugGoMain})
}

func debugRun(t testing.TB, dir string, args ...string) Result {
	t.Helper()
	return runAWEnv(t, dir, nil, cacheEnv(), args...)
}

// processesUnder lists living processes (the broker aside) one of whose
// arguments is a path inside dir: adapters, their sandboxes, programs.
func processesUnder(dir string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if st, ok := proc.Read(pid); !ok || !st.Living() {
			continue
		}
		raw, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		args := strings.Split(string(raw), "\x00")
		if strings.Contains(string(raw), "broker\x00serve") {
			continue
		}
		for _, a := range args {
			if strings.Contains(a, dir+string(os.PathSeparator)) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

func goneUnder(dir string, within time.Duration) []int {
	deadline := time.Now().Add(within)
	for {
		left := processesUnder(dir)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// debugLocals reads the first scope's variables of a frame (the locals).
func debugLocals(t *testing.T, dir string, frameID any) map[string]string {
	t.Helper()
	r := debugRun(t, dir, "debug", "scopes", strconv.Itoa(int(frameID.(float64))))
	okEnv(t, r, "scopes")
	r = debugRun(t, dir, "debug", "variables", strconv.Itoa(int(r.field(t, ".data.scopes.0.reference").(float64))))
	okEnv(t, r, "variables")
	vars := map[string]string{}
	for _, v := range r.field(t, ".data.variables").([]any) {
		m := v.(map[string]any)
		vars[m["name"].(string)] = m["value"].(string)
	}
	return vars
}

// TestDebugGo drives delve end to end: breakpoints before launch, the
// first stop, threads, stack, scopes, variables, evaluate, steps, a
// second launch refused, output, continue to the exit.
func TestDebugGo(t *testing.T) {
	needDlv(t)
	testenv.NeedProc(t)
	dir := goDebugWorkspace(t, "")
	r := debugRun(t, dir, "debug", "adapters")
	okEnv(t, r, "adapters")
	if a := r.field(t, ".data.adapters.0").(map[string]any); a["id"] != "delve" || a["available"] != true {
		t.Fatalf("delve not available in a Go module: %s", r.Stdout)
	}
	okEnv(t, debugRun(t, dir, "debug", "breakpoints", "main.go", "6"), "breakpoints before launch")
	r = debugRun(t, dir, "debug", "launch", "--wait", "120", ".")
	okEnv(t, r, "launch")
	if r.field(t, ".data.session.state") != "stopped" || r.field(t, ".data.session.stop.line") != 6.0 || r.field(t, ".data.session.stop.file") != "main.go" {
		t.Fatalf("launch did not stop at main.go:6: %s", r.Stdout)
	}
	if r.field(t, ".data.session.sandbox.mechanism") == nil {
		t.Fatalf("the session does not say which sandbox it runs in: %s", r.Stdout)
	}
	second := debugRun(t, dir, "debug", "launch", ".")
	wantCode(t, second, "TRANSACTION_STATE")
	if !strings.Contains(second.field(t, ".error.message").(string), "terminate") {
		t.Fatalf("the refusal of a second launch must say how to end the first: %s", second.Stdout)
	}
	r = debugRun(t, dir, "debug", "threads")
	okEnv(t, r, "threads")
	if len(r.field(t, ".data.threads").([]any)) == 0 {
		t.Fatalf("no threads: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "stack")
	okEnv(t, r, "stack")
	top := r.field(t, ".data.frames.0").(map[string]any)
	if top["function"] != "main.add" || top["file"] != "main.go" || top["line"] != 6.0 {
		t.Fatalf("top frame: %v", top)
	}
	if caller := r.field(t, ".data.frames.1").(map[string]any); caller["function"] != "main.main" || caller["line"] != 12.0 {
		t.Fatalf("caller frame: %v", caller)
	}
	if vars := debugLocals(t, dir, top["frameId"]); vars["a"] != "2" || vars["b"] != "3" {
		t.Fatalf("locals of add: %v", vars)
	}
	r = debugRun(t, dir, "debug", "evaluate", "a*10+b")
	okEnv(t, r, "evaluate")
	if r.field(t, ".data.result.value") != "23" {
		t.Fatalf("evaluate a*10+b: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "step-over")
	okEnv(t, r, "step-over")
	if r.field(t, ".data.session.stop.line") != 7.0 {
		t.Fatalf("step-over from line 6: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "step-out")
	okEnv(t, r, "step-out")
	if r.field(t, ".data.session.stop.function") != "main.main" {
		t.Fatalf("step-out of add: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "evaluate", "len(items)")
	okEnv(t, r, "evaluate in main")
	if r.field(t, ".data.result.value") != "3" {
		t.Fatalf("len(items): %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "continue")
	okEnv(t, r, "continue")
	if r.field(t, ".data.session.state") != "exited" || r.field(t, ".data.session.exitCode") != 0.0 {
		t.Fatalf("continue to the end: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "output")
	okEnv(t, r, "output")
	if text := r.field(t, ".data.text").(string); !strings.Contains(text, "total 5 3\ndone\n") {
		t.Fatalf("output: %q", text)
	}
	if left := goneUnder(dir, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes outlived the program's exit: %v", left)
	}
	wantCode(t, debugRun(t, dir, "debug", "stack"), "TRANSACTION_STATE")
	// Over: a new session may start.
	r = debugRun(t, dir, "debug", "launch", "--wait", "120", ".")
	okEnv(t, r, "launch after the end")
	r = debugRun(t, dir, "broker", "status")
	okEnv(t, r, "broker status")
	if held := r.field(t, ".data.held").([]any); len(held) != 1 || held[0].(map[string]any)["service"] != "debug" {
		t.Fatalf("broker status does not list the session: %s", r.Stdout)
	}
	r = debugRun(t, dir, "inspect", "capabilities")
	found := false
	for _, p := range r.field(t, ".data.processes").([]any) {
		if p.(map[string]any)["kind"] == "debug-delve" {
			found = true
		}
	}
	if !found {
		t.Fatalf("inspect capabilities does not list the adapter: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "terminate")
	okEnv(t, r, "terminate")
	if r.field(t, ".data.session.state") != "terminated" {
		t.Fatalf("terminate: %s", r.Stdout)
	}
	if left := goneUnder(dir, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes outlived terminate: %v", left)
	}
	wantCode(t, debugRun(t, dir, "debug", "terminate"), "TRANSACTION_STATE")
}

// TestDebugPython drives debugpy: a stop, a local, evaluate, a step, the
// program's output and its end.
func TestDebugPython(t *testing.T) {
	path := debugpyPath(t)
	testenv.NeedProc(t)
	dir := debugWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["python3"]}}`, map[string]string{
		"requirements.txt": "",
		"app.py":           "def add(a, b):\n    total = a + b\n    return total\n\nprint('start')\nr = add(2, 3)\nprint('result', r)\n",
	})
	run := func(args ...string) Result {
		return runAWEnv(t, dir, nil, []string{"PATH=" + path}, args...)
	}
	okEnv(t, run("debug", "breakpoints", "app.py", "3"), "breakpoints")
	r := run("debug", "launch", "app.py")
	okEnv(t, r, "launch")
	if r.field(t, ".data.session.stop.line") != 3.0 || r.field(t, ".data.session.stop.function") != "add" {
		t.Fatalf("launch did not stop at app.py:3: %s", r.Stdout)
	}
	r = run("debug", "evaluate", "total * 2")
	okEnv(t, r, "evaluate")
	if r.field(t, ".data.result.value") != "10" {
		t.Fatalf("evaluate: %s", r.Stdout)
	}
	r = run("debug", "stack")
	okEnv(t, r, "stack")
	frame := strconv.Itoa(int(r.field(t, ".data.frames.0.frameId").(float64)))
	r = run("debug", "scopes", frame)
	okEnv(t, r, "scopes")
	r = run("debug", "variables", strconv.Itoa(int(r.field(t, ".data.scopes.0.reference").(float64))))
	okEnv(t, r, "variables")
	if !strings.Contains(string(r.Stdout), `"name":"total","value":"5"`) {
		t.Fatalf("locals: %s", r.Stdout)
	}
	r = run("debug", "step-out")
	okEnv(t, r, "step-out")
	r = run("debug", "continue")
	okEnv(t, r, "continue")
	if r.field(t, ".data.session.state") != "exited" {
		t.Fatalf("continue to the end: %s", r.Stdout)
	}
	r = run("debug", "output")
	if text := r.field(t, ".data.text").(string); !strings.Contains(text, "start\nresult 5\n") {
		t.Fatalf("output: %q", text)
	}
	if left := goneUnder(dir, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes outlived the program: %v", left)
	}
}

// TestDebugGate: launch is gated like a command run (Manual mode stages
// it; the adapter and the program must pass the command policy).
func TestDebugGate(t *testing.T) {
	needDlv(t)
	dir := goDebugWorkspace(t, `{"permissionMode": 0, "commands": {"allow": ["go", "dlv"]}}`)
	r := debugRun(t, dir, "debug", "launch", ".")
	if r.Code != 3 || r.field(t, ".data.status") != "pending_approval" || r.field(t, ".data.approval.kind") != "command" {
		t.Fatalf("launch in Manual mode is not staged as a command: exit %d %s", r.Code, r.Stdout)
	}
	if len(processesUnder(dir)) > 0 {
		t.Fatal("a staged launch started something")
	}
	dir = goDebugWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["go"]}}`)
	r = debugRun(t, dir, "debug", "launch", ".")
	wantCode(t, r, "COMMAND_DENIED")
	if !strings.Contains(r.field(t, ".error.message").(string), "delve adapter") {
		t.Fatalf("the refusal must name the adapter: %s", r.Stdout)
	}
	dir = goDebugWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["dlv"]}}`)
	r = debugRun(t, dir, "debug", "launch", ".")
	wantCode(t, r, "COMMAND_DENIED")
	if !strings.Contains(r.field(t, ".error.message").(string), "go run") {
		t.Fatalf("the refusal must name the program's command: %s", r.Stdout)
	}
	wantCode(t, runAW(t, dir, nil, "--tier", "write", "debug", "launch", "."), "TOOL_DISABLED")
}

// TestDebugRefusals: bad input gets a clear envelope before anything
// starts.
func TestDebugRefusals(t *testing.T) {
	dir := goDebugWorkspace(t, "")
	wantCode(t, debugRun(t, dir, "debug", "breakpoints"), "INVALID_INPUT")
	wantCode(t, debugRun(t, dir, "debug", "breakpoints", "main.go", "x"), "INVALID_INPUT")
	wantCode(t, debugRun(t, dir, "debug", "breakpoints", "main.go", "0"), "INVALID_INPUT")
	wantCode(t, debugRun(t, dir, "debug", "breakpoints", "nothere.go", "3"), "NOT_FOUND")
	wantCode(t, debugRun(t, dir, "debug", "breakpoints", "../x.go", "3"), "PATH_ESCAPE")
	wantCode(t, debugRun(t, dir, "debug", "launch"), "INVALID_INPUT")
	wantCode(t, debugRun(t, dir, "debug", "launch", "nothere"), "NOT_FOUND")
	wantCode(t, debugRun(t, dir, "debug", "launch", "--adapter", "gdb", "."), "INVALID_INPUT")
	wantCode(t, debugRun(t, dir, "debug", "launch", "--wait", "999", "."), "INVALID_INPUT")
	wantCode(t, debugRun(t, dir, "debug", "attach", "0"), "INVALID_INPUT")
	wantCode(t, debugRun(t, dir, "debug", "variables", "0"), "INVALID_INPUT")
	wantCode(t, debugRun(t, dir, "debug", "evaluate", " "), "INVALID_INPUT")
	wantCode(t, debugRun(t, dir, "debug", "stack"), "TRANSACTION_STATE")
	wantCode(t, debugRun(t, dir, "debug", "continue"), "TRANSACTION_STATE")
	// No root marker: the adapter says why and nothing starts.
	py := debugWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["python3"]}}`, map[string]string{"app.py": "print(1)\n"})
	r := debugRun(t, py, "debug", "launch", "app.py")
	wantCode(t, r, "TOOL_DISABLED")
	if !strings.Contains(r.field(t, ".error.message").(string), "requirements.txt") {
		t.Fatalf("the refusal must name the root markers: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "launch", "--adapter", "lldb", ".")
	wantCode(t, r, "TOOL_DISABLED")
}

// TestDebugTTL: a session ends at debug.ttlSeconds, and its processes with
// it.
func TestDebugTTL(t *testing.T) {
	needDlv(t)
	testenv.NeedProc(t)
	dir := goDebugWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["go", "dlv"]}, "debug": {"ttlSeconds": 8}}`)
	okEnv(t, debugRun(t, dir, "debug", "breakpoints", "main.go", "6"), "breakpoints")
	r := debugRun(t, dir, "debug", "launch", "--wait", "120", ".")
	okEnv(t, r, "launch")
	if r.field(t, ".data.session.state") != "stopped" {
		t.Fatalf("launch: %s", r.Stdout)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r = debugRun(t, dir, "debug", "status")
		if r.field(t, ".data.session.state") == "expired" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session outlived its TTL: %s", r.Stdout)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if left := goneUnder(dir, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes outlived the TTL: %v", left)
	}
	wantCode(t, debugRun(t, dir, "debug", "stack"), "TRANSACTION_STATE")
}

const debugCMain = `#include <stdio.h>

static int add(int a, int b) {
	int sum = a + b;
	return sum;
}

int main(void) {
	int items[3] = {1, 2, 3};
	int total = add(2, 3);
	printf("total %d %d\n", total, items[2]);
	printf("done\n");
	return 0;
}
`

// TestDebugC drives lldb's adapter on a C program built with debug
// information: the stop, locals, evaluate, steps, output and the exit.
func TestDebugC(t *testing.T) {
	testenv.NeedProc(t)
	cc := testenv.Need(t, "cc", "scripts/test-deps installs it: apt-get install gcc")
	if _, err := exec.LookPath("lldb-dap-19"); err != nil {
		testenv.Need(t, "lldb-dap", "scripts/test-deps installs it: apt-get install lldb-19")
	}
	dir := debugWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["lldb-dap", "lldb-dap-19", "./hello"]}}`,
		map[string]string{"CMakeLists.txt": "project(hello C)\n", "hello.c": debugCMain})
	build := exec.Command(cc, "-g", "-O0", "-o", "hello", "hello.c")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	okEnv(t, debugRun(t, dir, "debug", "breakpoints", "hello.c", "4"), "breakpoints")
	r := debugRun(t, dir, "debug", "launch", "--wait", "60", "hello")
	okEnv(t, r, "launch")
	if r.field(t, ".data.session.adapter") != "lldb" || r.field(t, ".data.session.state") != "stopped" ||
		r.field(t, ".data.session.stop.file") != "hello.c" || r.field(t, ".data.session.stop.line") != 4.0 {
		t.Fatalf("launch did not stop at hello.c:4 with lldb: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "stack")
	okEnv(t, r, "stack")
	if r.field(t, ".data.frames.0.function") != "add" || r.field(t, ".data.frames.1.function") != "main" || r.field(t, ".data.frames.1.line") != 10.0 {
		t.Fatalf("stack: %s", r.Stdout)
	}
	if vars := debugLocals(t, dir, r.field(t, ".data.frames.0.frameId")); vars["a"] != "2" || vars["b"] != "3" {
		t.Fatalf("locals of add: %v", vars)
	}
	r = debugRun(t, dir, "debug", "evaluate", "a*10+b")
	if v, _ := r.field(t, ".data.result.value").(string); !strings.HasSuffix(v, "= 23") {
		t.Fatalf("evaluate a*10+b: %s", r.Stdout)
	}
	if r = debugRun(t, dir, "debug", "step-over"); r.field(t, ".data.session.stop.line") != 5.0 {
		t.Fatalf("step-over from line 4: %s", r.Stdout)
	}
	if r = debugRun(t, dir, "debug", "step-out"); r.field(t, ".data.session.stop.function") != "main" {
		t.Fatalf("step-out of add: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "continue")
	okEnv(t, r, "continue")
	if r.field(t, ".data.session.state") != "exited" || r.field(t, ".data.session.exitCode") != 0.0 {
		t.Fatalf("continue to the end: %s", r.Stdout)
	}
	r = debugRun(t, dir, "debug", "output")
	// lldb runs the program on a terminal of its own, so lines end in CRLF.
	if text := strings.ReplaceAll(r.field(t, ".data.text").(string), "\r\n", "\n"); !strings.Contains(text, "total 5 3\ndone\n") {
		t.Fatalf("output: %q", text)
	}
	if left := goneUnder(dir, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes outlived the program's exit: %v", left)
	}
}

// TestDebugAttach: attach connects to a program started with its debugger
// listening on a loopback port (delve headless, debugpy --listen), stops at
// a breakpoint set before, reads the frame's locals and runs the program
// to its end.
func TestDebugAttach(t *testing.T) {
	needDlv(t)
	for _, tc := range []struct {
		adapter, file string
		line          int
		files         map[string]string
		start         func(t *testing.T, dir string, port int) *exec.Cmd
	}{
		{"delve", "main.go", 6, map[string]string{"go.mod": "module example.com/hello\n\ngo 1.22\n", "main.go": debugGoMain},
			func(t *testing.T, dir string, port int) *exec.Cmd {
				build := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", "prog", ".")
				build.Dir = dir
				if out, err := build.CombinedOutput(); err != nil {
					t.Fatalf("go build: %v\n%s", err, out)
				}
				return exec.Command("dlv", "exec", "--headless", "--accept-multiclient", "--api-version", "2",
					"--listen", "127.0.0.1:"+strconv.Itoa(port), "./prog")
			}},
		{"debugpy", "app.py", 3, map[string]string{"app.py": "def add(a, b):\n    s = a + b\n    return s\n\nprint('total', add(2, 3))\n"},
			func(t *testing.T, dir string, port int) *exec.Cmd {
				python := "/usr/bin/python3"
				if p, err := exec.LookPath("python3"); err == nil && debugpyPath(t) == os.Getenv("PATH") {
					python = p
				}
				return exec.Command(python, "-m", "debugpy", "--listen", "127.0.0.1:"+strconv.Itoa(port), "--wait-for-client", "app.py")
			}},
	} {
		t.Run(tc.adapter, func(t *testing.T) {
			dir := debugWorkspace(t, `{"permissionMode": 2}`, tc.files)
			port := freePort(t)
			prog := tc.start(t, dir, port)
			prog.Dir = dir
			if err := prog.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { prog.Process.Kill(); prog.Wait() })
			okEnv(t, debugRun(t, dir, "debug", "breakpoints", tc.file, strconv.Itoa(tc.line)), "breakpoints")
			var r Result
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				r = debugRun(t, dir, "debug", "attach", "--adapter", tc.adapter, "--wait", "60", strconv.Itoa(port))
				if !strings.Contains(string(r.Stdout), `"code":"NOT_FOUND"`) || time.Now().After(deadline) {
					break // NOT_FOUND: the debugger is not listening yet
				}
			}
			okEnv(t, r, "attach")
			if r.field(t, ".data.session.state") != "stopped" || r.field(t, ".data.session.stop.file") != tc.file || r.field(t, ".data.session.stop.line") != float64(tc.line) {
				t.Fatalf("attach did not stop at %s:%d: %s", tc.file, tc.line, r.Stdout)
			}
			if !strings.HasPrefix(r.field(t, ".summary").(string), "attached") {
				t.Fatalf("summary: %s", r.Stdout)
			}
			r = debugRun(t, dir, "debug", "stack")
			okEnv(t, r, "stack")
			if vars := debugLocals(t, dir, r.field(t, ".data.frames.0.frameId")); vars["a"] != "2" || vars["b"] != "3" {
				t.Fatalf("locals of add: %v", vars)
			}
			r = debugRun(t, dir, "debug", "continue", "--wait", "60")
			okEnv(t, r, "continue")
			if r.field(t, ".data.session.state") != "exited" {
				t.Fatalf("continue to the end: %s", r.Stdout)
			}
		})
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestDebugOutlivesBrokerIdle: a debug session lives to its TTL though
// the broker's idle limit is shorter, and the broker exits once it ended.
func TestDebugOutlivesBrokerIdle(t *testing.T) {
	needDlv(t)
	testenv.NeedProc(t)
	dir := goDebugWorkspace(t, `{"permissionMode": 2, "commands": {"allow": ["go", "dlv"]}, "broker": {"idleSeconds": 1}, "debug": {"ttlSeconds": 15}}`)
	okEnv(t, debugRun(t, dir, "debug", "breakpoints", "main.go", "6"), "breakpoints")
	r := debugRun(t, dir, "debug", "launch", "--wait", "120", ".")
	okEnv(t, r, "launch")
	if left, _ := r.field(t, ".data.session.remainingSeconds").(float64); left < 6 {
		t.Fatalf("the launch took most of the TTL; nothing left to test: %s", r.Stdout)
	}
	pid, _ := brokerStatus(t, dir)
	time.Sleep(3 * time.Second) // the idle limit and a check interval, without a call
	if !processAlive(pid) {
		t.Fatal("the broker's idle exit ended a debug session before its TTL")
	}
	r = debugRun(t, dir, "debug", "status")
	if r.field(t, ".data.session.state") != "stopped" {
		t.Fatalf("the session did not survive the broker's idle limit: %s", r.Stdout)
	}
	if !pidGone(pid, 30*time.Second) {
		t.Fatal("the broker outlived the session's TTL and its own idle limit")
	}
	if left := goneUnder(dir, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes outlived the session: %v", left)
	}
}

// TestDebugBrokerKilled: a broker killed with SIGKILL mid-session leaves
// no adapter or program alive, and the session is reported gone.
func TestDebugBrokerKilled(t *testing.T) {
	needDlv(t)
	testenv.NeedProc(t)
	dir := goDebugWorkspace(t, "")
	okEnv(t, debugRun(t, dir, "debug", "breakpoints", "main.go", "6"), "breakpoints")
	okEnv(t, debugRun(t, dir, "debug", "launch", "--wait", "120", "."), "launch")
	if len(processesUnder(dir)) == 0 {
		t.Fatal("no adapter process found for the session")
	}
	pid, _ := brokerStatus(t, dir)
	syscall.Kill(pid, syscall.SIGKILL)
	if !pidGone(pid, 5*time.Second) {
		t.Fatal("the killed broker still runs")
	}
	if left := goneUnder(dir, 10*time.Second); len(left) > 0 {
		t.Fatalf("the adapter or the program outlived the broker: %v", left)
	}
	r := debugRun(t, dir, "debug", "stack")
	wantCode(t, r, "TRANSACTION_STATE")
	r = debugRun(t, dir, "debug", "status")
	okEnv(t, r, "status after the kill")
	if r.field(t, ".data.session") != nil {
		t.Fatalf("a session is reported after its broker died: %s", r.Stdout)
	}
}
