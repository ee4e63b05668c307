package workspace

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/policy/rule"
)

// TestArgv splits commands.testCommand into the argv `aw command test`
// runs: words as sh splits them, quotes respected, nothing expanded. The
// test command is one program with its arguments in either interpreter,
// never a shell line, so the pattern and path aw appends stay one argv
// element each whatever they contain. An empty line is no test command.
func TestArgv(line string) ([]string, error) {
	if strings.TrimSpace(line) == "" {
		return nil, nil
	}
	if strings.ContainsRune(line, 0) {
		return nil, errors.New("it contains a NUL byte")
	}
	toks, err := rule.Scan(line)
	if err != nil {
		return nil, err
	}
	argv := make([]string, 0, len(toks))
	for _, t := range toks {
		if t.Op != "" {
			return nil, fmt.Errorf("%q is a shell operator: the test command runs without a shell, so put several steps in a script or a make target and name that", strings.TrimSpace(t.Op))
		}
		argv = append(argv, t.Text)
	}
	return argv, nil
}

// TestCandidate is a test command the project's files suggest, and why.
type TestCandidate struct {
	Command string `json:"command"`
	File    string `json:"file"` // the root file that suggests it
	Reason  string `json:"reason"`
}

// testRules say which file at the root suggests which test command, in the
// order they are preferred: a runner whose results aw reads in full (go
// test's JSON) before one it only reads a summary of, and make last, since
// its recipe may run anything.
var testRules = []struct {
	file    string
	command string
	// has, when set, must hold for the file's content.
	has    func(content []byte) bool
	reason string
}{
	{"go.mod", "go test ./...", nil, "go.mod at the root: a Go module"},
	{"package.json", "npm test", packageHasTest, "package.json at the root has a test script"},
	{"Cargo.toml", "cargo test", nil, "Cargo.toml at the root: a Rust crate"},
	{"pytest.ini", "pytest", nil, "pytest.ini at the root"},
	{"pyproject.toml", "pytest", nil, "pyproject.toml at the root: a Python project"},
	{"setup.cfg", "pytest", nil, "setup.cfg at the root: a Python project"},
	{"tox.ini", "pytest", nil, "tox.ini at the root: a Python project"},
	{"Makefile", "make test", makefileHasTest, "Makefile at the root has a test target"},
}

// maxProbeBytes bounds what detection reads of one project file.
const maxProbeBytes = 1 << 20

// DetectTestCommands lists the test commands root's files suggest, the
// preferred first, one per command.
func DetectTestCommands(root string) []TestCandidate {
	out := []TestCandidate{}
	seen := map[string]bool{}
	for _, r := range testRules {
		if seen[r.command] {
			continue
		}
		f, err := os.Open(filepath.Join(root, r.file))
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			f.Close()
			continue
		}
		ok := true
		if r.has != nil {
			content, _ := io.ReadAll(io.LimitReader(f, maxProbeBytes))
			ok = r.has(content)
		}
		f.Close()
		if ok {
			seen[r.command] = true
			out = append(out, TestCandidate{Command: r.command, File: r.file, Reason: r.reason})
		}
	}
	return out
}

// packageHasTest: npm's own placeholder ("no test specified") is no test
// script.
func packageHasTest(content []byte) bool {
	t := testScript(content)
	return t != "" && !strings.Contains(t, "no test specified")
}

func testScript(content []byte) string {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(content, &pkg) != nil {
		return ""
	}
	return strings.TrimSpace(pkg.Scripts["test"])
}

// PackageTestScript is the test script of dir's package.json ("" when
// there is none).
func PackageTestScript(dir string) string {
	f, err := os.Open(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	defer f.Close()
	content, _ := io.ReadAll(io.LimitReader(f, maxProbeBytes))
	return testScript(content)
}

// makefileHasTest looks for a rule whose targets include test.
func makefileHasTest(content []byte) bool {
	sc := bufio.NewScanner(strings.NewReader(string(content)))
	sc.Buffer(make([]byte, 64<<10), maxProbeBytes)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '\t' || line[0] == '#' {
			continue
		}
		targets, rest, ok := strings.Cut(line, ":")
		// test := x, test ::= x and test :::= x assign a variable.
		if !ok || strings.HasPrefix(strings.TrimLeft(rest, ":"), "=") {
			continue
		}
		for _, t := range strings.Fields(targets) {
			if t == "test" {
				return true
			}
		}
	}
	return false
}
