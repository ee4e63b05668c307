package command

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// testRunner is what aw knows about one test runner: how to recognize its
// command, how to add a name filter and a path in its own syntax, and
// which output parsers read its results (the first that finds a result
// wins; textParsers are tried after them for every runner).
type testRunner struct {
	name  string
	match func(argv []string) bool
	// filter adds the pattern to argv; nil: the runner has no filter aw
	// knows, and a pattern is refused.
	filter func(argv []string, pattern string) []string
	// path spells a workspace path (relative to the tests' directory,
	// slashes) as the runner's operand; nil: --path is refused. apply puts
	// the operand in place.
	path    func(rel string, dir bool, suffix string) (string, error)
	operand func(argv []string, operand string) ([]string, []string)
	json    bool     // reads go test -json events
	parsers []string // names of textParsers, in order
}

// testRunners, in the order they are tried; unknownRunner matches the rest.
var testRunners = []*testRunner{
	{
		name:  "go",
		match: func(a []string) bool { return base(a[0]) == "go" && len(a) > 1 && a[1] == "test" },
		filter: func(a []string, p string) []string {
			return insertBefore(a, "-args", "-run", p)
		},
		path:    goPath,
		operand: goOperand,
		json:    true,
	},
	{
		name: "npm",
		match: func(a []string) bool {
			if base(a[0]) != "npm" || len(a) < 2 {
				return false
			}
			return a[1] == "test" || a[1] == "t" || a[1] == "tst" || (len(a) > 2 && (a[1] == "run" || a[1] == "run-script") && a[2] == "test")
		},
		// npm hands what follows -- to the script; npmFilter picks the
		// script's runner's flag.
		filter:  func(a []string, p string) []string { return append(afterDashes(a), "-t", p) },
		path:    plainPath,
		operand: func(a []string, o string) ([]string, []string) { return append(afterDashes(a), o), nil },
		parsers: []string{"jest", "vitest", "node", "mocha"},
	},
	{
		name: "jest",
		match: func(a []string) bool {
			return base(a[0]) == "jest" || base(a[0]) == "vitest" || (base(a[0]) == "npx" && len(a) > 1 && (a[1] == "jest" || a[1] == "vitest"))
		},
		filter:  func(a []string, p string) []string { return append(clone(a), "-t", p) },
		path:    plainPath,
		operand: appendOperand,
		parsers: []string{"jest", "vitest"},
	},
	{
		name:  "node",
		match: func(a []string) bool { return base(a[0]) == "node" && indexOf(a, "--test") > 0 },
		filter: func(a []string, p string) []string {
			i := indexOf(a, "--test") + 1
			return append(append(clone(a[:i]), "--test-name-pattern", p), a[i:]...)
		},
		path:    plainPath,
		operand: appendOperand,
		parsers: []string{"node"},
	},
	{
		name: "pytest",
		match: func(a []string) bool {
			b := base(a[0])
			if b == "pytest" || b == "py.test" {
				return true
			}
			return strings.HasPrefix(b, "python") && len(a) > 2 && a[1] == "-m" && a[2] == "pytest"
		},
		filter:  func(a []string, p string) []string { return append(clone(a), "-k", p) },
		path:    plainPath,
		operand: appendOperand,
		parsers: []string{"pytest"},
	},
	{
		name:  "cargo",
		match: func(a []string) bool { return base(a[0]) == "cargo" && len(a) > 1 && a[1] == "test" },
		// The test-name filter is cargo test's TESTNAME operand.
		filter: func(a []string, p string) []string { return insertBefore(a, "--", p) },
		path: func(rel string, dir bool, _ string) (string, error) {
			if dir {
				rel = rel + "/Cargo.toml"
			}
			if filepath.Base(rel) != "Cargo.toml" {
				return "", envelope.Errorf(envelope.InvalidInput, "cargo test narrows to a crate: pass the crate's directory or its Cargo.toml as --path, and select tests by name with --pattern").With("path", rel)
			}
			return dotSlash(rel), nil
		},
		operand: func(a []string, o string) ([]string, []string) {
			return append(append(clone(a[:2]), "--manifest-path", o), a[2:]...), nil
		},
		parsers: []string{"cargo"},
	},
	{
		name:  "make",
		match: func(a []string) bool { return base(a[0]) == "make" || base(a[0]) == "gmake" },
	},
}

var unknownRunner = &testRunner{name: "unknown"}

// npmFilters are the name-filter flags of the runners a package.json test
// script starts, by its first word; any other script gets -t, the flag
// jest and vitest share.
var npmFilters = map[string]string{"node": "--test-name-pattern", "mocha": "--grep", "jest": "-t", "vitest": "-t"}

// npmFilter is the npm runner with the filter flag of the test script in
// dir's package.json.
func npmFilter(r *testRunner, dir string) *testRunner {
	script := workspace.PackageTestScript(dir)
	words := strings.Fields(script)
	flag := "-t"
	if len(words) > 0 {
		if f, ok := npmFilters[base(words[0])]; ok && (words[0] != "node" || indexOf(words, "--test") > 0) {
			flag = f
		}
	}
	c := *r
	c.filter = func(a []string, p string) []string { return append(afterDashes(a), flag, p) }
	return &c
}

func findRunner(argv []string) *testRunner {
	for _, r := range testRunners {
		if r.match(argv) {
			return r
		}
	}
	return unknownRunner
}

// display names the runner in messages.
func (r *testRunner) display() string {
	if r == unknownRunner {
		return "this test command"
	}
	return r.name
}

// refusal opens the message that refuses a pattern or path.
func (r *testRunner) refusal() string {
	if r.name == "make" {
		return "the test command runs make, whose recipe decides what runs"
	}
	return "the test command is not a runner aw knows (go test, npm test, jest, vitest, node --test, pytest, cargo test)"
}

// apply adds the pattern and the path operand to argv: go test also gets
// -json, so its results are read event by event rather than from text.
func (r *testRunner) apply(argv []string, pattern, operand string) ([]string, []string, error) {
	out := clone(argv)
	var notes []string
	if r.json && !hasFlag(out, "json") {
		out = append(append(clone(out[:2]), "-json"), out[2:]...)
		notes = append(notes, "aw added -json to go test to read each test's result; the stdout log holds go test's JSON events")
	}
	// The filter's options go before the path: a runner such as node
	// stops reading options at its first operand.
	if pattern != "" {
		if r.filter == nil {
			return nil, nil, envelope.Errorf(envelope.InvalidInput, "%s: aw does not know its test-name filter, so it cannot pass --pattern; run all the tests without --pattern, or a human sets commands.testCommand to the runner itself (go test ./..., pytest, npm test, cargo test)", r.refusal()).With("runner", r.name)
		}
		out = r.filter(out, pattern)
	}
	if operand != "" {
		var n []string
		out, n = r.operand(out, operand)
		notes = append(notes, n...)
	}
	return out, notes, nil
}

// goValueFlags are go test's and go build's flags that take their value as
// the next word: that word is not a package.
var goValueFlags = setOf("run", "skip", "bench", "benchtime", "count", "cpu", "parallel", "timeout", "coverprofile",
	"covermode", "coverpkg", "cpuprofile", "memprofile", "memprofilerate", "blockprofile", "blockprofilerate",
	"mutexprofile", "mutexprofilefraction", "trace", "outputdir", "o", "exec", "tags", "ldflags", "gcflags",
	"asmflags", "gccgoflags", "p", "mod", "modfile", "overlay", "pkgdir", "toolexec", "vet", "shuffle", "fuzz",
	"fuzztime", "fuzzminimizetime", "C", "pgo", "buildmode", "compiler", "installsuffix", "list", "fullpath")

// goOperand replaces go test's package arguments with the path's.
func goOperand(a []string, o string) ([]string, []string) {
	out := clone(a[:2])
	var dropped []string
	args := a[2:]
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "-args" || w == "--args" {
			out = append(out, o)
			out = append(out, args[i:]...)
			return out, droppedNote(dropped, o)
		}
		if strings.HasPrefix(w, "-") {
			out = append(out, w)
			name := strings.TrimLeft(w, "-")
			if !strings.Contains(name, "=") && goValueFlags[name] && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
			continue
		}
		dropped = append(dropped, w)
	}
	return append(out, o), droppedNote(dropped, o)
}

func droppedNote(dropped []string, o string) []string {
	if len(dropped) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("--path replaced the test command's packages %s with %s", strings.Join(dropped, " "), o)}
}

// goPath is a package directory as go test names it: ./dir, ./dir/...
func goPath(rel string, dir bool, suffix string) (string, error) {
	if !dir {
		return "", envelope.Errorf(envelope.InvalidInput, "go test takes packages: pass a directory (or dir/... for it and the packages below it) as --path, not the file %s; select tests by name with --pattern", rel).With("path", rel)
	}
	return dotSlash(rel) + suffix, nil
}

// plainPath is the path as the runner's operand; a name starting with a
// dash gets ./ so it is never read as an option.
func plainPath(rel string, _ bool, suffix string) (string, error) {
	if strings.HasPrefix(rel, "-") {
		rel = "./" + rel
	}
	return rel + suffix, nil
}

func dotSlash(rel string) string {
	if rel == "." {
		return "."
	}
	return "./" + rel
}

func appendOperand(a []string, o string) ([]string, []string) { return append(clone(a), o), nil }

// afterDashes is argv ending in --, so npm hands what follows to the script.
func afterDashes(a []string) []string {
	if indexOf(a, "--") >= 0 {
		return clone(a)
	}
	return append(clone(a), "--")
}

// insertBefore puts words before the first marker in a, or at the end.
func insertBefore(a []string, marker string, words ...string) []string {
	i := indexOf(a, marker)
	if i < 0 {
		return append(clone(a), words...)
	}
	return append(append(clone(a[:i]), words...), a[i:]...)
}

func hasFlag(a []string, name string) bool {
	for _, w := range a {
		n := strings.TrimLeft(w, "-")
		if strings.HasPrefix(w, "-") && (n == name || strings.HasPrefix(n, name+"=")) {
			return true
		}
	}
	return false
}

func indexOf(a []string, w string) int {
	for i, x := range a {
		if x == w {
			return i
		}
	}
	return -1
}

func base(exe string) string { return filepath.Base(exe) }

func clone(a []string) []string { return append([]string(nil), a...) }

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
