package command

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/store"
)

// Output of the runners this machine may not have (pytest, jest, vitest,
// cargo), as they print it, read back through the log parser.
var runnerOutputs = []struct {
	runner         string
	stdout, stderr string
	counts         [3]int
	failing        []string // name@package
	excerpt        string   // in the first failure's output
}{
	{"pytest", `============================= test session starts ==============================
platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0
collected 4 items

test_a.py .Fs.                                                           [100%]

=================================== FAILURES ===================================
____________________________________ TestCart.test_total ____________________________________

    def test_total(self):
>       assert total([1, 2]) == 4
E       assert 3 == 4

test_a.py:9: AssertionError
=========================== short test summary info ============================
FAILED test_a.py::TestCart::test_total - assert 3 == 4
=============== 1 failed, 2 passed, 1 skipped, 1 warning in 0.03s ===============
`, "", [3]int{2, 1, 1}, []string{"TestCart::test_total@test_a.py"}, "E       assert 3 == 4"},
	{"pytest", "..F\n" + "FAILED tests/test_b.py::test_x - boom\n1 failed, 2 passed in 0.10s\n", "", [3]int{2, 1, 0}, []string{"test_x@tests/test_b.py"}, ""},
	{"jest", "", `FAIL ./sum.test.js
  sum
    ✓ adds (2 ms)
    ✕ subtracts (3 ms)

  ● sum › subtracts

    expect(received).toBe(expected) // Object.is equality

    Expected: 1
    Received: 2

Test Suites: 1 failed, 1 total
Tests:       1 failed, 1 skipped, 1 passed, 3 total
Snapshots:   0 total
`, [3]int{1, 1, 1}, []string{"sum › subtracts@sum"}, "Received: 2"},
	{"jest", "\x1b[32m ❯ src/sum.test.ts (2)\x1b[39m\n   × sum > subtracts\n\n FAIL  src/sum.test.ts > sum > subtracts\nAssertionError: expected 2 to be 1\n ❯ src/sum.test.ts:5:20\n\n Test Files  1 failed (1)\n      Tests  1 failed | 1 passed (2)\n", "",
		[3]int{1, 1, 0}, []string{"sum > subtracts@src/sum.test.ts"}, "expected 2 to be 1"},
	{"cargo", `running 2 tests
test tests::adds ... ok
test tests::subtracts ... FAILED

failures:

---- tests::subtracts stdout ----
thread 'tests::subtracts' panicked at src/lib.rs:12:9:
assertion ` + "`left == right`" + ` failed

failures:
    tests::subtracts

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

running 1 test
test it_works ... ignored

test result: ok. 0 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s
`, "error: test failed, to rerun pass `--lib`\n", [3]int{1, 1, 1}, []string{"tests::subtracts@"}, "panicked at src/lib.rs:12:9"},
	{"make", "  3 passing (12ms)\n  1 failing\n  2 pending\n", "", [3]int{3, 1, 2}, nil, ""},
}

func TestParseRunnerOutputs(t *testing.T) {
	for i, tc := range runnerOutputs {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "out.log"), []byte(tc.stdout), 0o644)
		os.WriteFile(filepath.Join(dir, "err.log"), []byte(tc.stderr), 0o644)
		j := &Job{Stdout: LogFile{Path: "out.log"}, Stderr: LogFile{Path: "err.log"}}
		var r *testRunner
		for _, x := range testRunners {
			if x.name == tc.runner {
				r = x
			}
		}
		res := parseResults(store.Open(dir), j, r)
		if !res.counted || [3]int{res.passed, res.failed, res.skipped} != tc.counts {
			t.Errorf("%d %s: counted %v %d/%d/%d, want %v", i, tc.runner, res.counted, res.passed, res.failed, res.skipped, tc.counts)
			continue
		}
		var got []string
		for _, f := range res.failures {
			got = append(got, f.Name+"@"+f.Package)
		}
		if strings.Join(got, "|") != strings.Join(tc.failing, "|") {
			t.Errorf("%d %s: failing %q, want %q", i, tc.runner, got, tc.failing)
			continue
		}
		if tc.excerpt != "" && !strings.Contains(res.failures[0].Output, tc.excerpt) {
			t.Errorf("%d %s: excerpt %q lacks %q", i, tc.runner, res.failures[0].Output, tc.excerpt)
		}
	}
}

// TestParseBounded: thousands of failing tests with long output are kept
// to bounded excerpts, the rest counted as omitted; a line of megabytes
// is cut, not held whole.
func TestParseBounded(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		b.WriteString("test t_" + strconv.Itoa(i) + " ... FAILED\n")
	}
	for i := 0; i < 1000; i++ {
		b.WriteString("---- t_" + strconv.Itoa(i) + " stdout ----\n" + strings.Repeat("noise line\n", 500))
	}
	b.WriteString(strings.Repeat("y", 3<<20) + "\n")
	b.WriteString("test result: FAILED. 0 passed; 1000 failed; 0 ignored; 0 measured; 0 filtered out\n")
	os.WriteFile(filepath.Join(dir, "out.log"), []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "err.log"), nil, 0o644)
	res := parseResults(store.Open(dir), &Job{Stdout: LogFile{Path: "out.log"}, Stderr: LogFile{Path: "err.log"}}, unknownRunner)
	if res.failed != 1000 || len(res.failures) != maxKeptFailures || res.omitted != 1000-maxKeptFailures {
		t.Fatalf("failed %d, kept %d, omitted %d", res.failed, len(res.failures), res.omitted)
	}
	for _, f := range res.failures {
		if len(f.Output) > maxExcerptBytes+maxExcerptLines {
			t.Fatalf("excerpt of %s is %d bytes", f.Name, len(f.Output))
		}
	}
}

// BenchmarkParseGoJSON reads a go test -json log of 10,000 tests (five
// events each, every tenth failing) back into results.
func BenchmarkParseGoJSON(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		name := "TestCase" + strconv.Itoa(i)
		action := "pass"
		if i%10 == 0 {
			action = "fail"
		}
		sb.WriteString(`{"Action":"run","Package":"example.com/m","Test":"` + name + `"}` + "\n")
		sb.WriteString(`{"Action":"output","Package":"example.com/m","Test":"` + name + `","Output":"=== RUN   ` + name + `\n"}` + "\n")
		sb.WriteString(`{"Action":"output","Package":"example.com/m","Test":"` + name + `","Output":"    m_test.go:9: some output of the test that is long enough to matter\n"}` + "\n")
		sb.WriteString(`{"Action":"output","Package":"example.com/m","Test":"` + name + `","Output":"--- ` + strings.ToUpper(action) + `: ` + name + ` (0.00s)\n"}` + "\n")
		sb.WriteString(`{"Action":"` + action + `","Package":"example.com/m","Test":"` + name + `","Elapsed":0}` + "\n")
	}
	sb.WriteString(`{"Action":"fail","Package":"example.com/m","Elapsed":1.5}` + "\n")
	path := filepath.Join(dir, "out.log")
	os.WriteFile(path, []byte(sb.String()), 0o644)
	b.SetBytes(int64(sb.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := parseGoJSON(path); res.failed != 1000 || res.passed != 9000 {
			b.Fatalf("parsed %d passed %d failed", res.passed, res.failed)
		}
	}
}
