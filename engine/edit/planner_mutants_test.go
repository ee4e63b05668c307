package edit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// The tests in this file pin planner rules that mutation testing
// (scripts/mutants) found undefended: which operation a refusal names,
// the bounds of a request, and the line arithmetic of splice.

// planErr plans raw against files and returns the refusal.
func planErr(t *testing.T, files map[string]string, raw string) error {
	t.Helper()
	err := newPlanner(planWS(t, files)).apply(ops(t, raw))
	if err == nil {
		t.Fatalf("%s: planned, want a refusal", raw)
	}
	return err
}

// plannedP plans raw against files and returns the planner.
func plannedP(t *testing.T, files map[string]string, raw string) *planner {
	t.Helper()
	p := newPlanner(planWS(t, files))
	if err := p.apply(ops(t, raw)); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return p
}

// planned is a path's content after the operations, "<absent>" when gone.
func planned(t *testing.T, p *planner, path string) string {
	t.Helper()
	f := p.files[path]
	if f == nil || !f.exists {
		return "<absent>"
	}
	return string(f.content)
}

// A refusal names the operation (1-based) it comes from, in its message and
// its operation detail, and names the earlier operation it conflicts with.
func TestPlannerRefusalNamesOperation(t *testing.T) {
	files := map[string]string{"a.txt": "one\n"}
	for _, c := range []struct {
		raw, msg string
		op       int
	}{
		// opErr
		{`[{"type":"mkdir","path":"d"},{"type":"create","path":"a.txt","content":"x"}]`, "operation 2 (create): a.txt already exists", 2},
		// a jail refusal from file
		{`[{"type":"mkdir","path":"d"},{"type":"create","path":"../x","content":"x"}]`, "operation 2 (create): ", 0},
		// a jail refusal from mkdir
		{`[{"type":"mkdir","path":"d"},{"type":"mkdir","path":"../x"}]`, "operation 2 (mkdir): ", 0},
		// the file claim an earlier op made
		{`[{"type":"mkdir","path":"d"},{"type":"create","path":"n","content":""},{"type":"mkdir","path":"n/sub"}]`, "operation 3 (mkdir): n/sub cannot be a directory: operation 2 uses n as a file", 3},
		// the directory claim an earlier op made
		{`[{"type":"create","path":"x","content":""},{"type":"mkdir","path":"d/e"},{"type":"create","path":"d","content":""}]`, "operation 3 (create): d is used as a file here, but operation 2 makes d/e a directory", 3},
	} {
		err := planErr(t, files, c.raw)
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.raw, err, c.msg)
		}
		if e, ok := err.(*envelope.Error); c.op > 0 && (!ok || e.Details["operation"] != c.op) {
			t.Errorf("%s: detail operation %v, want %d", c.raw, err.(*envelope.Error).Details["operation"], c.op)
		}
	}
}

// A transaction holds 1 to 1000 operations: the 1000th is still planned
// (here refused on its own terms), the 1001st refuses the whole.
func TestPlannerOperationCountBound(t *testing.T) {
	err := newPlanner(planWS(t, nil)).apply(make([]Op, 1000))
	if err == nil || !strings.Contains(err.Error(), "type is required") {
		t.Errorf("1000 operations: %v, want the first one's own refusal", err)
	}
	err = newPlanner(planWS(t, nil)).apply(make([]Op, 1001))
	if err == nil || !strings.Contains(err.Error(), "limit is 1000") {
		t.Errorf("1001 operations: %v", err)
	}
}

// A stale expect_sha256 names the file's hash now, or says it is absent.
func TestExpectSHA256Message(t *testing.T) {
	files := map[string]string{"a.txt": "one\n"}
	err := planErr(t, files, `[{"type":"rewrite","path":"a.txt","content":"x","expect_sha256":"00"}]`)
	if !strings.Contains(err.Error(), "is now "+sha([]byte("one\n"))) {
		t.Errorf("existing file: %v", err)
	}
	err = planErr(t, files, `[{"type":"create","path":"n.txt","content":"x","expect_sha256":"00"}]`)
	if !strings.Contains(err.Error(), "is now (the file does not exist)") {
		t.Errorf("missing file: %v", err)
	}
	// The hash compares without regard to case.
	plannedP(t, files, `[{"type":"rewrite","path":"a.txt","content":"x","expect_sha256":"`+strings.ToUpper(sha([]byte("one\n")))+`"}]`)
}

// expected_matches 1 is the smallest count accepted.
func TestReplaceExpectedMatchesOne(t *testing.T) {
	p := plannedP(t, map[string]string{"a.txt": "one two\n"}, `[{"type":"replace","path":"a.txt","search":"two","replacement":"2","expected_matches":1}]`)
	if planned(t, p, "a.txt") != "one 2\n" {
		t.Errorf("a.txt = %q", planned(t, p, "a.txt"))
	}
}

// A search that finds nothing explains a copied line-number gutter: that
// without it the text would match (and how often), or would not either;
// a search with no gutter, or nothing left without it, gets no hint.
func TestReplaceNoMatchGutterHint(t *testing.T) {
	files := map[string]string{"a.txt": "one\ntwo\n"}
	for _, c := range []struct{ search, hint string }{
		{"7 | two", "it would match 1 time(s)"},
		{"7 | three", "would not match without it either"},
		{"three", ""},
		{"7 | ", ""},
	} {
		err := planErr(t, files, fmt.Sprintf(`[{"type":"replace","path":"a.txt","search":%q,"replacement":"x"}]`, c.search))
		if c, _ := errCode(err); c != envelope.EditConflict {
			t.Fatalf("%v", err)
		}
		hinted := strings.Contains(err.Error(), "gutter")
		if c.hint == "" && hinted || c.hint != "" && !strings.Contains(err.Error(), c.hint) {
			t.Errorf("search %q: %v, want hint %q", c.search, err, c.hint)
		}
	}
}

// Each replacement is recorded with its operation's 1-based number.
func TestReplacementRecordsOperation(t *testing.T) {
	p := plannedP(t, map[string]string{"a.txt": "one\n"}, `[{"type":"mkdir","path":"d"},{"type":"replace","path":"a.txt","search":"one","replacement":"1"}]`)
	if len(p.replaced) != 1 || p.replaced[0] != (Replacement{Operation: 2, Path: "a.txt", Count: 1}) {
		t.Errorf("replaced %+v", p.replaced)
	}
}

// A multi-line search matches every occurrence whatever line ends the file
// has: CR LF, or a mix of CR LF and LF.
func TestReplaceMatchesEveryLineEnd(t *testing.T) {
	for name, text := range map[string]string{
		"crlf":  "a\r\nb\r\nx\r\na\r\nb\r\n",
		"mixed": "a\r\nb\nx\na\nb\n",
	} {
		files := map[string]string{"f": text}
		err := planErr(t, files, `[{"type":"replace","path":"f","search":"a\nb","replacement":"c"}]`)
		if _, r := errCode(err); r != "not-unique" || !strings.Contains(err.Error(), "matches 2 times") {
			t.Errorf("%s: %v, want two matches", name, err)
		}
		p := plannedP(t, files, `[{"type":"replace","path":"f","search":"a\nb","replacement":"c","replace_all":true}]`)
		if got := planned(t, p, "f"); strings.Contains(got, "a") {
			t.Errorf("%s: %q still holds a match", name, got)
		}
	}
}

// splice's refusals give the range that would be accepted.
func TestSpliceRangeMessages(t *testing.T) {
	files := map[string]string{"a.txt": "one\ntwo\nthree\n"}
	err := planErr(t, files, `[{"type":"splice","path":"a.txt","start_line":5,"content":"x"}]`)
	if !strings.Contains(err.Error(), "which has 3 lines: use 1 to 4") {
		t.Errorf("start_line: %v", err)
	}
	err = planErr(t, files, `[{"type":"splice","path":"a.txt","start_line":2,"delete_count":3}]`)
	if !strings.Contains(err.Error(), "(3 lines): use 0 to 2") {
		t.Errorf("delete_count: %v", err)
	}
}

// splice: inserted text ends its line only when lines follow it; a pure
// delete or an empty insert leaves the line before it as it was; a file
// starting with an empty line counts that line.
func TestSpliceLineEnds(t *testing.T) {
	for _, c := range []struct {
		text, op, want string
	}{
		{"one\ntwo\nthree\n", `"start_line":2,"delete_count":2,"content":"X"`, "one\nX"},
		{"one\ntwo\nthree\n", `"start_line":2,"delete_count":1,"content":"X"`, "one\nX\nthree\n"},
		{"one\ntwo\nthree", `"start_line":4,"content":""`, "one\ntwo\nthree"},
		{"one\ntwo\nthree", `"start_line":4`, "one\ntwo\nthree"},
		{"\nsecond\n", `"start_line":2,"delete_count":1,"content":"2\n"`, "\n2\n"},
	} {
		p := plannedP(t, map[string]string{"f": c.text}, `[{"type":"splice","path":"f",`+c.op+`}]`)
		if got := planned(t, p, "f"); got != c.want {
			t.Errorf("%q with %s = %q, want %q", c.text, c.op, got, c.want)
		}
	}
}

// copy reads its source (a protected file may be copied), move writes it
// (a protected file may not be moved away).
func TestCopyReadsMoveWritesSource(t *testing.T) {
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	p := plannedP(t, files, `[{"type":"copy","from":".git/HEAD","to":"head.txt"}]`)
	if planned(t, p, "head.txt") != "ref: refs/heads/main\n" {
		t.Error("the copy of a protected file was not planned")
	}
	if c, _ := errCode(planErr(t, files, `[{"type":"move","from":".git/HEAD","to":"head.txt"}]`)); c != envelope.ProtectedPath {
		t.Errorf("move of a protected file: %v", c)
	}
}

// A file over MaxFileBytes is refused; one of exactly that size is edited.
func TestPlannerFileSizeBound(t *testing.T) {
	ws := planWS(t, nil)
	for name, size := range map[string]int64{"at": MaxFileBytes, "over": MaxFileBytes + 1} {
		f, err := os.Create(filepath.Join(ws.Root, name))
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(size) // sparse: no disk is used
		f.Close()
	}
	if err := newPlanner(ws).apply(ops(t, `[{"type":"rewrite","path":"at","content":"x"}]`)); err != nil {
		t.Errorf("a file of exactly MaxFileBytes: %v", err)
	}
	err := newPlanner(ws).apply(ops(t, `[{"type":"rewrite","path":"over","content":"x"}]`))
	wantErr(t, err, envelope.InvalidInput, "", "over the 67108864-byte limit")
}

// A change of mode alone (a file deleted and a copy of the same text with
// other permissions put in its place) is a modify.
func TestPlannerModeOnlyChange(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "same\n", "b.txt": "same\n"})
	os.Chmod(filepath.Join(ws.Root, "b.txt"), 0o600)
	p := newPlanner(ws)
	if err := p.apply(ops(t, `[{"type":"delete","path":"a.txt"},{"type":"copy","from":"b.txt","to":"a.txt"}]`)); err != nil {
		t.Fatal(err)
	}
	ch := p.changes()
	if len(ch) != 1 || ch[0].Path != "a.txt" || ch[0].Change != "modify" || ch[0].Mode != 0o600 || ch[0].BeforeMode != 0o644 {
		t.Errorf("changes %+v", ch)
	}
}
