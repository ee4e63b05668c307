package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/sandbox"
)

// Tests of `aw command test`: a real Go module (and npm package) in a
// temp dir, run through the built binary, the sandbox and the gate.

// needTool skips (fails under CI) when a runner the test drives is missing.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: the command test tests run it", name)
		}
		t.Skipf("%s is not installed", name)
	}
}

// testWorkspace is a workspace holding files, with settings (a JSON
// object's body after permissionMode) and the sandbox's Go build cache in
// the user's cache directory, as TestSandboxToolchains keeps it.
func testWorkspace(t *testing.T, mode string, settings string, files map[string]string) string {
	t.Helper()
	dir := realDir(t, t.TempDir())
	if c, err := os.UserCacheDir(); err == nil {
		t.Cleanup(func() { os.RemoveAll(sandbox.StateDir(c, dir)) })
	}
	files[".agentic/config.json"] = `{"permissionMode": ` + mode + settings + `}`
	for p, c := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var goModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.21\n",
	"m.go":   "package m\n\nfunc Add(a, b int) int { return a + b }\n",
	"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestAddPasses(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n\n" +
		"func TestAddFails(t *testing.T) {\n\tt.Log(\"context before the failure\")\n\tif Add(2, 2) != 5 {\n\t\tt.Fatalf(\"Add(2, 2) = %d, want 5\", Add(2, 2))\n\t}\n}\n",
	"sub/s.go":        "package sub\n",
	"sub/s_test.go":   "package sub\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {}\n\nfunc TestSubSkipped(t *testing.T) { t.Skip(\"not yet\") }\n",
	"table/t_test.go": "package table\n\nimport \"testing\"\n\nfunc TestTable(t *testing.T) {\n\tfor _, c := range []string{\"a\", \"b\"} {\n\t\tt.Run(c, func(t *testing.T) {\n\t\t\tif c == \"b\" {\n\t\t\t\tt.Error(\"case b fails\")\n\t\t\t}\n\t\t})\n\t}\n}\n",
}

func counts(t *testing.T, r Result) [3]float64 {
	t.Helper()
	if r.field(t, ".data.countsKnown") != true {
		t.Fatalf("counts unknown: %s", r.Stdout)
	}
	return [3]float64{r.field(t, ".data.passed").(float64), r.field(t, ".data.failed").(float64), r.field(t, ".data.skipped").(float64)}
}

func failureNames(t *testing.T, r Result) []string {
	t.Helper()
	var out []string
	for _, f := range r.field(t, ".data.failures").([]any) {
		out = append(out, f.(map[string]any)["name"].(string))
	}
	return out
}

// TestCommandTestGo: the failing test's name, package and output, and
// the counts; a pattern selecting the passing test passes; --path narrows
// to one package; go test got -json and the envelope says so; the logs
// are artifacts; a failing run is ok (exit 0), as a failing command is.
func TestCommandTestGo(t *testing.T) {
	needTool(t, "go")
	requireBwrap(t)
	dir := testWorkspace(t, "2", `, "commands": {"allow": ["go"], "testCommand": "go test ./..."}`, goModule)

	r := runAW(t, dir, nil, "command", "test", "--pattern", "TestAdd")
	wantOK(t, r, 0)
	if got := counts(t, r); got != [3]float64{1, 1, 0} {
		t.Fatalf("counts %v, want passed 1 failed 1 skipped 0: %s", got, r.Stdout)
	}
	if names := failureNames(t, r); len(names) != 1 || names[0] != "TestAddFails" {
		t.Fatalf("failing tests %v, want [TestAddFails]: %s", names, r.Stdout)
	}
	if r.field(t, ".data.failures.0.package") != "example.com/m" || !strings.Contains(str(t, r, ".data.failures.0.output"), "Add(2, 2) = 4, want 5") ||
		!strings.Contains(str(t, r, ".data.failures.0.output"), "context before the failure") {
		t.Fatalf("failure excerpt: %s", r.Stdout)
	}
	if r.field(t, ".data.exitCode") != 1.0 || r.field(t, ".data.runner") != "go" || !strings.Contains(str(t, r, ".summary"), "TestAddFails") {
		t.Fatalf("result: %s", r.Stdout)
	}
	argv := r.field(t, ".data.argv").([]any)
	if !strings.Contains(strings.Join(anyStrings(argv), " "), "test -json ./... -run TestAdd") {
		t.Fatalf("argv %v: want -json added and -run TestAdd as two words", argv)
	}
	if !strings.Contains(strings.Join(anyStrings(r.field(t, ".retention.facts").([]any)), "\n"), "added -json") {
		t.Fatalf("the envelope must say -json was added: %s", r.Stdout)
	}
	arts := r.field(t, ".artifacts").([]any)
	if len(arts) != 2 {
		t.Fatalf("artifacts: %s", r.Stdout)
	}
	log, err := os.ReadFile(filepath.Join(dir, arts[0].(map[string]any)["path"].(string)))
	if err != nil || !strings.Contains(string(log), `"Action":"fail"`) {
		t.Fatalf("the stdout log holds go test's JSON events: %v %.300s", err, log)
	}
	if job := jobRecord(t, dir, str(t, r, ".data.jobId")); job["action"] != "test" {
		t.Fatalf("job record: %v", job)
	}

	pass := runAW(t, dir, nil, "command", "test", "--pattern", "TestAddPasses$")
	if got := counts(t, pass); got != [3]float64{1, 0, 0} || pass.field(t, ".data.exitCode") != 0.0 || len(failureNames(t, pass)) != 0 {
		t.Fatalf("the passing test alone: %v %s", got, pass.Stdout)
	}

	sub := runAW(t, dir, nil, "command", "test", "--path", "sub")
	if got := counts(t, sub); got != [3]float64{1, 0, 1} {
		t.Fatalf("--path sub: counts %v: %s", got, sub.Stdout)
	}
	if argv := strings.Join(anyStrings(sub.field(t, ".data.argv").([]any)), " "); !strings.HasSuffix(argv, "test -json ./sub") {
		t.Fatalf("--path sub replaces ./...: %s", argv)
	}
	// A failing subtest is listed, not its parent (which only says FAIL).
	table := runAW(t, dir, nil, "command", "test", "--path", "table")
	if got := counts(t, table); got != [3]float64{1, 2, 0} {
		t.Fatalf("--path table: counts %v: %s", got, table.Stdout)
	}
	if names := failureNames(t, table); len(names) != 1 || names[0] != "TestTable/b" || !strings.Contains(str(t, table, ".data.failures.0.output"), "case b fails") {
		t.Fatalf("subtest failure %v: %s", names, table.Stdout)
	}
	all := runAW(t, dir, nil, "command", "test", "--path", "./...")
	if got := counts(t, all); got != [3]float64{3, 3, 1} {
		t.Fatalf("--path ./...: counts %v: %s", got, all.Stdout)
	}
	wantErr(t, runAW(t, dir, nil, "command", "test", "--path", "m.go"), "INVALID_INPUT", 2, "directory")
	wantErr(t, runAW(t, dir, nil, "command", "test", "--path", "../"), "PATH_ESCAPE", 1)
	wantErr(t, runAW(t, dir, nil, "command", "test", "--path", "nowhere"), "NOT_FOUND", 1)

	// A package that does not build is a failure of its own, with the
	// compiler's message.
	os.WriteFile(filepath.Join(dir, "sub", "broken.go"), []byte("package sub\n\nfunc broken() { undefinedName() }\n"), 0o644)
	b := runAW(t, dir, nil, "command", "test", "--path", "sub")
	if b.field(t, ".data.exitCode") == 0.0 || !strings.Contains(string(b.Stdout), "undefinedName") {
		t.Fatalf("a build failure says why: %s", b.Stdout)
	}
}

func anyStrings(l []any) []string {
	out := make([]string, len(l))
	for i, v := range l {
		out[i], _ = v.(string)
	}
	return out
}

// TestCommandTestPatternIsOneWord: a pattern with shell metacharacters is
// one argv word, in argv mode and in sh mode: nothing is expanded, no
// file is created; patterns no runner reads as a name are refused.
func TestCommandTestPatternIsOneWord(t *testing.T) {
	needTool(t, "go")
	requireBwrap(t)
	for _, interp := range []string{"none", "sh"} {
		dir := testWorkspace(t, "2", `, "commands": {"allow": ["go"], "interpreter": "`+interp+`", "testCommand": "go test ./..."}`, goModule)
		for _, p := range []string{"$(touch x)", "`touch x`", "a' && touch x; '"} {
			r := runAW(t, dir, nil, "command", "test", "--pattern", p)
			wantOK(t, r, 0)
			argv := anyStrings(r.field(t, ".data.argv").([]any))
			if argv[len(argv)-1] != p || argv[len(argv)-2] != "-run" {
				t.Fatalf("%s mode: pattern %q is not one word: %v", interp, p, argv)
			}
			if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
				t.Fatalf("%s mode: pattern %q ran a command", interp, p)
			}
		}
		for _, p := range []string{"-exec=evil", "a\nb", `a"b`} {
			wantErr(t, runAW(t, dir, nil, "command", "test", "--pattern", p), "INVALID_INPUT", 2, "pattern")
		}
		if entries, _ := os.ReadDir(filepath.Join(dir, ".agentic", "jobs")); len(entries) != 3 {
			t.Fatalf("%s mode: %d jobs, want 3 (refused patterns run nothing)", interp, len(entries))
		}
	}
}

// TestCommandTestRefusals: the test command is refused as any command is;
// without one there is a clear envelope saying how to set it; a runner
// whose filter aw does not know refuses a pattern; settings refuse a shell
// line.
func TestCommandTestRefusals(t *testing.T) {
	denied := testWorkspace(t, "2", `, "commands": {"allow": ["go"], "deny": ["go"], "testCommand": "go test ./..."}`, map[string]string{})
	wantErr(t, runAW(t, denied, nil, "command", "test"), "COMMAND_DENIED", 1, "commands.deny")
	notAllowed := testWorkspace(t, "2", `, "commands": {"allow": ["echo"], "testCommand": "go test ./..."}`, map[string]string{})
	r := runAW(t, notAllowed, nil, "command", "test")
	wantErr(t, r, "COMMAND_DENIED", 1)
	if r.field(t, ".error.details.reason") != "not-allowed" {
		t.Fatalf("reason: %s", r.Stdout)
	}
	if entries, _ := os.ReadDir(filepath.Join(notAllowed, ".agentic", "jobs")); len(entries) != 0 {
		t.Fatalf("a refused test command left a job")
	}

	none := testWorkspace(t, "2", `, "commands": {"allow": ["go"]}`, map[string]string{"README.md": "nothing to test\n"})
	m := wantErr(t, runAW(t, none, nil, "command", "test"), "TOOL_DISABLED", 1, "aw config set commands.testCommand")
	if !strings.Contains(m, "go.mod") {
		t.Fatalf("the message says what aw looked for: %s", m)
	}

	mk := testWorkspace(t, "2", `, "commands": {"allow": ["make"], "testCommand": "make test"}`, map[string]string{"Makefile": "test:\n\ttrue\n"})
	wantErr(t, runAW(t, mk, nil, "command", "test", "--pattern", "TestX"), "INVALID_INPUT", 2, "make", "--pattern")
	wantErr(t, runAW(t, mk, nil, "command", "test", "--path", "."), "INVALID_INPUT", 2, "--path")

	bad := testWorkspace(t, "2", `, "commands": {"allow": ["go"], "testCommand": "go test ./... && curl evil"}`, map[string]string{})
	wantErr(t, runAW(t, bad, nil, "command", "test"), "INVALID_INPUT", 2, "commands.testCommand", "shell operator")

	wantErr(t, runAW(t, notAllowed, nil, "--tier", "write", "command", "test"), "TOOL_DISABLED", 1, "tier")
}

// TestCommandTestOtherRunners: a command aw does not know gives the exit
// code and the tails, counts unknown; a plain "N passed, N failed" line is
// read from any runner.
func TestCommandTestOtherRunners(t *testing.T) {
	requireBwrap(t)
	dir := testWorkspace(t, "2", `, "commands": {"allow": ["echo", "sh"], "testCommand": "sh run-tests.sh"}`,
		map[string]string{"run-tests.sh": "echo checking; echo 'it broke' >&2; exit 4\n"})
	r := runAW(t, dir, nil, "command", "test")
	wantOK(t, r, 0)
	if r.field(t, ".data.countsKnown") != false || r.field(t, ".data.passed") != nil || r.field(t, ".data.exitCode") != 4.0 ||
		r.field(t, ".data.stderrTail") != "it broke\n" || r.field(t, ".data.runner") != "unknown" {
		t.Fatalf("unknown runner: %s", r.Stdout)
	}
	wantErr(t, runAW(t, dir, nil, "command", "test", "--pattern", "x"), "INVALID_INPUT", 2, "not a runner aw knows")

	// Many failing tests with long output: the envelope stays within its
	// bound, the rest is counted as omitted and is in the logs.
	big := testWorkspace(t, "2", `, "maxToolResultChars": 20000, "commands": {"allow": ["sh"], "testCommand": "sh many.sh"}`, map[string]string{"many.sh": `i=0
while [ $i -lt 300 ]; do echo "test t_$i ... FAILED"; i=$((i+1)); done
i=0
while [ $i -lt 300 ]; do echo "---- t_$i stdout ----"; j=0; while [ $j -lt 50 ]; do echo "panicked with a long explanation line $j of test $i"; j=$((j+1)); done; i=$((i+1)); done
echo "test result: FAILED. 4 passed; 300 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s"
exit 101
`})
	m := runAW(t, big, nil, "command", "test", "--timeout", "120")
	checkBound(t, "command test with 300 failing tests", m)
	if got := counts(t, m); got != [3]float64{4, 300, 0} || len(failureNames(t, m)) != 20 || m.field(t, ".data.failuresOmitted") != 280.0 {
		t.Fatalf("300 failing tests: %v, %d listed: %.2000s", got, len(failureNames(t, m)), m.Stdout)
	}

	plain := testWorkspace(t, "2", `, "commands": {"allow": ["echo"], "testCommand": "echo 'suite: 7 passed, 2 failed, 1 skipped'"}`, map[string]string{})
	p := runAW(t, plain, nil, "command", "test")
	if got := counts(t, p); got != [3]float64{7, 2, 1} {
		t.Fatalf("plain summary line: %v %s", got, p.Stdout)
	}
}

// TestCommandTestNpm: npm test with a node --test script: the failing
// test by name, the counts, and the pattern passed with node's own flag.
func TestCommandTestNpm(t *testing.T) {
	needTool(t, "npm")
	requireBwrap(t)
	dir := testWorkspace(t, "2", `, "commands": {"allow": ["npm", "node"], "env": {"npm_config_update_notifier": "false"}}`, map[string]string{
		"package.json": `{"name": "p", "version": "1.0.0", "scripts": {"test": "node --test"}}`,
		"cart.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\n" +
			"test('adds items', () => { assert.strictEqual(1 + 1, 2); });\n" +
			"test('cart total', () => { assert.strictEqual(2 + 2, 5, 'cart total is wrong'); });\n",
	})
	r := runAW(t, dir, nil, "command", "test")
	wantOK(t, r, 0)
	if got := counts(t, r); got[0] != 1 || got[1] != 1 {
		t.Fatalf("npm test counts %v: %s", got, r.Stdout)
	}
	if names := failureNames(t, r); len(names) != 1 || names[0] != "cart total" || !strings.Contains(str(t, r, ".data.failures.0.output"), "cart total is wrong") {
		t.Fatalf("npm test failures %v: %s", names, r.Stdout)
	}
	if r.field(t, ".data.source") != "package.json" {
		t.Fatalf("detected from package.json: %s", r.Stdout)
	}
	one := runAW(t, dir, nil, "command", "test", "--pattern", "adds", "--path", "cart.test.js")
	if got := counts(t, one); got[0] != 1 || got[1] != 0 || one.field(t, ".data.exitCode") != 0.0 {
		t.Fatalf("npm test --pattern adds: %v %s", got, one.Stdout)
	}
	if argv := strings.Join(anyStrings(one.field(t, ".data.argv").([]any)[1:]), " "); argv != "test -- --test-name-pattern adds cart.test.js" {
		t.Fatalf("npm argv: %s", argv)
	}
}

// TestCommandTestGate: Manual mode stages the test call with its resume
// spelled as a command line; the approved resume runs it once; Plan mode
// refuses it until a plan is approved.
func TestCommandTestGate(t *testing.T) {
	plan := testWorkspace(t, "1", `, "commands": {"allow": ["echo"], "testCommand": "echo '1 passed, 0 failed'"}`, map[string]string{})
	wantErr(t, runAW(t, plan, nil, "command", "test"), "APPROVAL_REQUIRED", 1)

	dir, human := manualWorkspace(t, `, "commands": {"allow": ["echo"], "testCommand": "echo '1 passed, 0 failed'"}`)
	r := runAW(t, dir, nil, "command", "test", "--pattern", "ignored")
	// echo is no runner aw knows: a pattern is refused before the gate.
	wantErr(t, r, "INVALID_INPUT", 2)
	r = runAW(t, dir, nil, "command", "test", "--timeout", "30")
	if r.Code != 3 || r.field(t, ".data.approval.kind") != "command" || !strings.Contains(str(t, r, ".data.approval.title"), "echo") {
		t.Fatalf("test in Manual mode: exit %d %s", r.Code, r.Stdout)
	}
	if r.field(t, ".data.approval.resume.arguments.action") != "test" {
		t.Fatalf("resume: %s", r.Stdout)
	}
	id := str(t, r, ".data.approval.id")
	if a := runAWEnv(t, dir, nil, human, "approval", "accept", id); a.Code != 0 {
		t.Fatalf("accept: %s", a.Stdout)
	}
	ran := runAW(t, dir, nil, "command", "test", "--timeout", "30")
	if got := counts(t, ran); got != [3]float64{1, 0, 0} {
		t.Fatalf("resumed test: %s", ran.Stdout)
	}
	if again := runAW(t, dir, nil, "command", "test", "--timeout", "30"); again.Code != 3 {
		t.Fatalf("a consumed approval runs nothing twice: %s", again.Stdout)
	}
	// An approval of command run is not one of command test.
	run := runAW(t, dir, nil, "command", "run", "--timeout", "30", "--", "echo", "1 passed, 0 failed")
	if run.Code != 3 || run.field(t, ".data.approval.id") == id {
		t.Fatalf("run and test are distinct operations: %s", run.Stdout)
	}
}

// TestCommandTestResumeLine: the staged resume names the pattern and path
// as flags of `aw command test`.
func TestCommandTestResumeLine(t *testing.T) {
	dir, _ := manualWorkspace(t, `, "commands": {"allow": ["go"], "testCommand": "go test ./..."}`)
	os.MkdirAll(filepath.Join(dir, "pkg"), 0o755)
	r := runAW(t, dir, nil, "command", "test", "--pattern", "TestX$", "--path", "pkg")
	if r.Code != 3 || r.field(t, ".data.approval.resume.command") != "aw command test --path pkg --pattern 'TestX$'" {
		t.Fatalf("resume command line: %s", r.Stdout)
	}
}

// TestInitProposesTestCommand: aw init proposes the test command from the
// project and says why; a human's init writes it, an agent's leaves it a
// comment; config set takes it and refuses a shell line.
func TestInitProposesTestCommand(t *testing.T) {
	for _, tc := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"go.mod": "module example.com/m\n"}, "go test ./..."},
		{map[string]string{"package.json": `{"scripts": {"test": "jest"}}`}, "npm test"},
		{map[string]string{"package.json": `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}`}, ""},
		{map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n"}, "pytest"},
		{map[string]string{"Cargo.toml": "[package]\nname = \"c\"\n"}, "cargo test"},
		{map[string]string{"Makefile": ".PHONY: test\ntest: build\n\tgo test ./...\n"}, "make test"},
		{map[string]string{"Makefile": "build:\n\tcc x.c\n"}, ""},
		{map[string]string{"Makefile": "test:\n\ttrue\n", "go.mod": "module m\n"}, "go test ./..."},
	} {
		dir := realDir(t, t.TempDir())
		for p, c := range tc.files {
			os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
		}
		r := runAW(t, dir, nil, "init")
		wantOK(t, r, 0)
		got, _ := r.Env["data"].(map[string]any)["proposedTestCommand"].(string)
		if got != tc.want {
			t.Fatalf("%v: proposed %q, want %q: %s", tc.files, got, tc.want, r.Stdout)
		}
		if tc.want == "" {
			if !strings.Contains(strings.ToLower(str(t, r, ".summary")), "no test command proposed") {
				t.Fatalf("init says nothing was proposed: %s", r.Stdout)
			}
			continue
		}
		if !strings.Contains(str(t, r, ".summary"), "aw config set commands.testCommand '"+tc.want+"'") || r.field(t, ".data.testCommandReason") == "" {
			t.Fatalf("init says what it proposed and why: %s", r.Stdout)
		}
		if cur := runAW(t, dir, nil, "config", "get", "commands.testCommand"); cur.field(t, ".data.value") != "" {
			t.Fatalf("an agent's init must not set the test command: %s", cur.Stdout)
		}
		cfg, _ := os.ReadFile(filepath.Join(dir, ".agentic", "config.json"))
		if !strings.Contains(string(cfg), "//   aw config set commands.testCommand '"+tc.want+"'") {
			t.Fatalf("the proposal is a comment in the config:\n%s", cfg)
		}
	}

	// A human's init writes it.
	dir, human := manualWorkspace(t, "")
	os.Remove(filepath.Join(dir, ".agentic", "config.json"))
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644)
	if r := runAWEnv(t, dir, nil, human, "init"); r.field(t, ".data.testCommandApplied") != true {
		t.Fatalf("human init: %s", r.Stdout)
	}
	if cur := runAW(t, dir, nil, "config", "get", "commands.testCommand"); cur.field(t, ".data.value") != "go test ./..." {
		t.Fatalf("after a human's init: %s", cur.Stdout)
	}
	if r := runAWEnv(t, dir, nil, human, "config", "set", "commands.testCommand", "go test -race ./..."); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stdout)
	}
	wantErr(t, runAWEnv(t, dir, nil, human, "config", "set", "commands.testCommand", "go test ./... | tee log"), "INVALID_INPUT", 2, "shell operator")
	if cur := runAW(t, dir, nil, "config", "get", "commands.testCommand"); cur.field(t, ".data.value") != "go test -race ./..." {
		t.Fatalf("a refused set changes nothing: %s", cur.Stdout)
	}
	wantErr(t, runAW(t, dir, nil, "config", "set", "commands.testCommand", "true"), "HUMAN_REQUIRED", 1)
}
