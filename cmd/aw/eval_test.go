package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// evalPath is a PATH whose python3 is a real interpreter (not a shim that
// needs the user's home, which the sandbox replaces).
func evalPath(t testing.TB) string {
	t.Helper()
	for _, dir := range []string{"/usr/bin", "/usr/local/bin"} {
		if _, err := os.Stat(filepath.Join(dir, "python3")); err == nil {
			return dir + string(os.PathListSeparator) + os.Getenv("PATH")
		}
	}
	p := testenv.Need(t, "python3", "scripts/test-deps installs it: apt-get install python3")
	return filepath.Dir(p) + string(os.PathListSeparator) + os.Getenv("PATH")
}

type evalWS struct {
	t    *testing.T
	dir  string
	path string
}

func newEvalWS(t *testing.T, config string) evalWS {
	t.Helper()
	if config == "" {
		config = `{"permissionMode": 2, "commands": {"allow": ["python3"]}}`
	}
	w := evalWS{t: t, path: evalPath(t)}
	w.dir = debugWorkspace(t, config, map[string]string{"notes.txt": "alpha\nbeta\n"})
	return w
}

func (w evalWS) run(env []string, args ...string) Result {
	w.t.Helper()
	return runAWEnv(w.t, w.dir, nil, append([]string{"PATH=" + w.path}, env...), args...)
}

func (w evalWS) cell(code string, more ...string) Result {
	w.t.Helper()
	return w.run(nil, append([]string{"eval", code, "--description", "a test cell"}, more...)...)
}

// TestEvalState: variables and imports survive between cells, the last
// expression is echoed, prints are captured, an exception comes back
// with a traceback of the cell's own frames and keeps the state, and
// reset starts clean.
func TestEvalState(t *testing.T) {
	w := newEvalWS(t, "")
	r := w.cell("import math\nx = 41\nprint('set', x)")
	okEnv(t, r, "first cell")
	if r.field(t, ".data.stdout") != "set 41\n" || r.field(t, ".data.fresh") != true {
		t.Fatalf("first cell: %s", r.Stdout)
	}
	r = w.cell("x + 1")
	okEnv(t, r, "echo")
	if r.field(t, ".data.result.data") != "42" || r.field(t, ".data.cell") != 2.0 {
		t.Fatalf("the last expression is not echoed from the kept state: %s", r.Stdout)
	}
	r = w.cell("math.floor(2.5)\ndisplay({'k': 1})")
	okEnv(t, r, "display")
	if r.field(t, ".data.displays.0.data") != "{'k': 1}" {
		t.Fatalf("display: %s", r.Stdout)
	}
	r = w.cell("def f():\n    return 1 / 0\nf()")
	okEnv(t, r, "exception")
	tb := r.field(t, ".data.error.traceback").(string)
	if r.field(t, ".data.error.ename") != "ZeroDivisionError" || !strings.Contains(tb, `File "<cell>", line 2, in f`) || strings.Contains(tb, "_run") {
		t.Fatalf("the traceback must hold the cell's frames only: %q", tb)
	}
	if !strings.Contains(r.field(t, ".summary").(string), "raised ZeroDivisionError") {
		t.Fatalf("summary: %s", r.Stdout)
	}
	okEnv(t, w.cell("x"), "state after an exception")
	r = w.cell("x", "--reset")
	okEnv(t, r, "reset")
	if r.field(t, ".data.error.ename") != "NameError" {
		t.Fatalf("reset kept the state: %s", r.Stdout)
	}
	// Issue 20's rule: the interpreter is the broker's, listed, and gone
	// with it.
	r = w.run(nil, "inspect", "capabilities")
	pid := 0
	for _, p := range r.field(t, ".data.processes").([]any) {
		if m := p.(map[string]any); m["kind"] == "eval-python" {
			pid = int(m["pid"].(float64))
		}
	}
	if pid == 0 {
		t.Fatalf("inspect capabilities does not list the interpreter: %s", r.Stdout)
	}
	bpid, _ := brokerStatus(t, w.dir)
	syscall.Kill(bpid, syscall.SIGKILL)
	if !pidGone(pid, 10*time.Second) {
		t.Fatalf("the interpreter (pid %d) outlived its broker", pid)
	}
	r = w.cell("x")
	okEnv(t, r, "a cell after the broker died")
	if r.field(t, ".data.error.ename") != "NameError" || r.field(t, ".data.fresh") != true {
		t.Fatalf("a new broker must start a clean interpreter: %s", r.Stdout)
	}
}

// TestEvalRefusals: bad input gets a clear envelope.
func TestEvalRefusals(t *testing.T) {
	w := newEvalWS(t, "")
	wantCode(t, w.run(nil, "eval", "1"), "INVALID_INPUT") // no description
	wantCode(t, w.run(nil, "eval", "--description", "nothing to run"), "INVALID_INPUT")
	wantCode(t, w.cell("1", "--language", "ruby"), "INVALID_INPUT")
	wantCode(t, w.cell("1", "--language", "javascript"), "COMMAND_DENIED") // node is not allowed here
	wantCode(t, w.cell("1", "--timeout", "9999"), "INVALID_INPUT")
	wantCode(t, runAWEnv(t, w.dir, nil, []string{"PATH=" + w.path}, "--tier", "write", "eval", "1", "--description", "capped"), "TOOL_DISABLED")
	denied := newEvalWS(t, `{"permissionMode": 2, "commands": {"allow": ["go"]}}`)
	r := denied.cell("1")
	wantCode(t, r, "COMMAND_DENIED")
	r = w.cell("tool('eval.run', {'code': '1', 'description': 'nested'})")
	okEnv(t, r, "nested eval")
	if !strings.Contains(r.field(t, ".data.error.evalue").(string), "cannot call eval.run") {
		t.Fatalf("a cell calling eval: %s", r.Stdout)
	}
}

// TestEvalBridge: tool() inside a cell is a call like any other: a read
// answers with its data, `!cmd` goes through the command policy, and in
// Manual mode both the cell and an edit it makes are staged.
func TestEvalBridge(t *testing.T) {
	w := newEvalWS(t, "")
	r := w.cell("tool('read', {'path': 'notes.txt'})['content']")
	okEnv(t, r, "bridged read")
	if !strings.Contains(r.field(t, ".data.result.data").(string), "alpha") || r.field(t, ".data.toolCalls") != 1.0 {
		t.Fatalf("bridged read: %s", r.Stdout)
	}
	r = w.cell("tool('inspect.read', {'path': '../outside'})")
	okEnv(t, r, "bridged escape")
	if !strings.Contains(r.field(t, ".data.error.evalue").(string), "PATH_ESCAPE") {
		t.Fatalf("the jail does not apply to a bridged call: %s", r.Stdout)
	}
	r = w.cell("!ls")
	okEnv(t, r, "!ls refused")
	if !strings.Contains(r.field(t, ".data.error.evalue").(string), "COMMAND_DENIED") {
		t.Fatalf("!ls ran though ls is not allowed: %s", r.Stdout)
	}
	allowed := newEvalWS(t, `{"permissionMode": 2, "commands": {"allow": ["python3", "ls"]}}`)
	r = allowed.cell("!ls")
	okEnv(t, r, "!ls allowed")
	if !strings.Contains(r.field(t, ".data.stdout").(string), "notes.txt") {
		t.Fatalf("!ls output: %s", r.Stdout)
	}
	// %pip is `python3 -m pip` through the same bridged command call (pip
	// itself may be missing: Debian's python3 comes without it).
	r = allowed.cell("%pip --version")
	okEnv(t, r, "%pip")
	if out := r.field(t, ".data.stdout").(string) + r.field(t, ".data.stderr").(string); r.field(t, ".data.toolCalls") != 1.0 || !strings.Contains(out, "pip") {
		t.Fatalf("%%pip did not run python3 -m pip as a command: %s", r.Stdout)
	}

	manual := newEvalWS(t, `{"permissionMode": 0, "commands": {"allow": ["python3"]}}`)
	code := "res = tool('edit.apply', {'operations': [{'type': 'replace', 'path': 'notes.txt', 'search': 'alpha', 'replacement': 'gamma'}]})\nres['status']"
	r = manual.cell(code)
	if r.Code != 3 || r.field(t, ".data.status") != "pending_approval" {
		t.Fatalf("a cell in Manual mode is not staged: exit %d %s", r.Code, r.Stdout)
	}
	id := r.field(t, ".data.approval.id").(string)
	okEnv(t, manual.run(approver(t), "approval", "accept", id), "accept the cell")
	r = manual.cell(code)
	okEnv(t, r, "the approved cell")
	if r.field(t, ".data.result.data") != "'pending_approval'" {
		t.Fatalf("the edit inside the cell was not staged: %s", r.Stdout)
	}
	if raw, _ := os.ReadFile(filepath.Join(manual.dir, "notes.txt")); string(raw) != "alpha\nbeta\n" {
		t.Fatalf("a staged edit changed the file: %q", raw)
	}
}

// TestEvalTimeout: a cell silent past its budget is interrupted with a
// TIMEOUT (its variables kept); a bridged call does not count against it.
func TestEvalTimeout(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		testenv.Missing(t, "sleep", "coreutils")
	}
	w := newEvalWS(t, `{"permissionMode": 2, "commands": {"allow": ["python3", "sleep"]}}`)
	okEnv(t, w.cell("kept = 7"), "setup")
	start := time.Now()
	r := w.cell("import time\ntime.sleep(30)", "--timeout", "1")
	wantCode(t, r, "TIMEOUT")
	if time.Since(start) > 15*time.Second {
		t.Fatalf("the timeout took %s", time.Since(start))
	}
	r = w.cell("kept")
	okEnv(t, r, "after the timeout")
	if r.field(t, ".data.result.data") != "7" {
		t.Fatalf("the interrupt lost the state: %s", r.Stdout)
	}
	r = w.cell("tool('command.run', {'executable': 'sleep', 'args': ['2']})['exitCode']", "--timeout", "1")
	okEnv(t, r, "a bridged call longer than the budget")
	if r.field(t, ".data.result.data") != "0" {
		t.Fatalf("bridged sleep: %s", r.Stdout)
	}
}

// TestEvalRichOutput: a pandas frame comes back as a table, a matplotlib
// figure as a PNG artifact, and the IPython idioms run as plain code.
func TestEvalRichOutput(t *testing.T) {
	w := newEvalWS(t, "")
	py := filepath.Join(filepath.SplitList(w.path)[0], "python3")
	if exec.Command(py, "-c", "import pandas, matplotlib").Run() != nil {
		testenv.Missing(t, "pandas and matplotlib", "scripts/test-deps installs them: apt-get install python3-pandas python3-matplotlib")
	}
	r := w.cell("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})\ndf")
	okEnv(t, r, "a frame")
	if r.field(t, ".data.result.table") != true || !strings.Contains(r.field(t, ".data.result.data").(string), "0  1  x") {
		t.Fatalf("a frame is not a table: %s", r.Stdout)
	}
	r = w.cell("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nNone")
	okEnv(t, r, "a figure")
	arts := r.field(t, ".artifacts").([]any)
	if len(arts) != 1 {
		t.Fatalf("no figure artifact: %s", r.Stdout)
	}
	png, err := os.ReadFile(filepath.Join(w.dir, arts[0].(map[string]any)["path"].(string)))
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Fatalf("the artifact is not a PNG: %v", err)
	}
	os.Mkdir(filepath.Join(w.dir, "sub"), 0o755)
	r = w.cell("%cd sub\nimport os\nos.path.basename(os.getcwd())")
	okEnv(t, r, "%cd")
	if r.field(t, ".data.result.data") != "'sub'" {
		t.Fatalf("%%cd: %s", r.Stdout)
	}
	r = w.cell("%%timeit\nsum(range(100))")
	okEnv(t, r, "%%timeit")
	if !strings.Contains(r.field(t, ".data.stdout").(string), "per loop") {
		t.Fatalf("%%%%timeit: %s", r.Stdout)
	}
}

// TestEvalJavaScript: node cells keep their globals, echo the last
// expression, capture console output, bridge tool() and report a thrown
// error with the cell's frames; a cell silent past its budget is killed
// (node cannot be interrupted mid-cell) and says its state is gone.
func TestEvalJavaScript(t *testing.T) {
	testenv.Need(t, "node", "scripts/test-deps installs it: apt-get install nodejs")
	w := newEvalWS(t, `{"permissionMode": 2, "commands": {"allow": ["node"]}}`)
	js := func(code string, more ...string) Result {
		return w.cell(code, append([]string{"--language", "javascript"}, more...)...)
	}
	okEnv(t, js("let x = 41; var y = 1; function twice(a) { return a * 2 }"), "first cell")
	r := js("console.log('hi', {a: 1}); twice(x) + y")
	okEnv(t, r, "echo")
	if r.field(t, ".data.result.data") != "83" || r.field(t, ".data.stdout") != "hi { a: 1 }\n" {
		t.Fatalf("state or echo: %s", r.Stdout)
	}
	r = js("tool('read', {path: 'notes.txt'}).content.includes('beta')")
	okEnv(t, r, "bridge")
	if r.field(t, ".data.result.data") != "true" {
		t.Fatalf("bridged read: %s", r.Stdout)
	}
	r = js("function g() { throw new TypeError('bad') }\ng()")
	okEnv(t, r, "throw")
	if r.field(t, ".data.error.ename") != "TypeError" || !strings.Contains(r.field(t, ".data.error.traceback").(string), "at g (<cell>:1:") {
		t.Fatalf("thrown error: %s", r.Stdout)
	}
	r = js("while (true) {}", "--timeout", "1")
	wantCode(t, r, "TIMEOUT")
	if !strings.Contains(r.field(t, ".error.message").(string), "variables are gone") {
		t.Fatalf("a killed interpreter must say its state is gone: %s", r.Stdout)
	}
	r = js("typeof x")
	okEnv(t, r, "after the kill")
	if r.field(t, ".data.result.data") != "'undefined'" || r.field(t, ".data.fresh") != true {
		t.Fatalf("after the kill: %s", r.Stdout)
	}
}
