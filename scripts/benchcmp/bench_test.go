package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The harness's equivalence checks decide whether a figure counts, so they
// are tested on their own; the measurements are not (speed is never a timed
// test).

func TestCheckMatchesReadsArtifacts(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".agentic", "artifacts"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentic", "artifacts", "s.txt"), []byte("a/b.go:3:x ErrX\nc:d.go:10:y\n"), 0o644)
	env := `{"ok":true,"operation":"inspect.search","artifacts":[{"kind":"search","path":".agentic/artifacts/s.txt"}],
		"data":{"matches":[{"path":"a/b.go","line":3,"column":1,"text":"x"}],"truncated":false}}`
	check := checkMatches(root, "rg")
	if err := check([]byte(env), []byte("a/b.go:3:x ErrX\nc:d.go:10:y\n")); err != nil {
		t.Fatalf("equivalent outputs refused: %v", err)
	}
	err := check([]byte(env), []byte("a/b.go:3:x\n./e.go:1:z\n"))
	if err == nil || !strings.Contains(err.Error(), "1 missing [e.go:1]") || !strings.Contains(err.Error(), "1 extra [c:d.go:10]") {
		t.Fatalf("difference not reported: %v", err)
	}
}

func TestCheckListInlineAndTSV(t *testing.T) {
	root := t.TempDir()
	inline := `{"ok":true,"data":{"entries":[{"path":"a","type":"directory","size":0,"depth":1},{"path":"a/b","type":"file","size":1,"depth":2}]}}`
	if err := checkList(root)([]byte(inline), []byte("./a\n./a/b\n")); err != nil {
		t.Fatal(err)
	}
	truncated := `{"ok":true,"data":{"entries":[],"truncated":true}}`
	if err := checkList(root)([]byte(truncated), []byte("./a\n")); err == nil {
		t.Fatal("a truncated listing without an artifact was accepted")
	}
	os.MkdirAll(filepath.Join(root, ".agentic", "artifacts"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentic", "artifacts", "l.tsv"), []byte("type\tsize\tdepth\tpath\ndirectory\t0\t1\ta\nfile\t1\t2\ta/b c\n"), 0o644)
	spilled := `{"ok":true,"artifacts":[{"path":".agentic/artifacts/l.tsv"}],"data":{"entries":[],"truncated":false}}`
	if err := checkList(root)([]byte(spilled), []byte("a\na/b c\n")); err != nil {
		t.Fatal(err)
	}
}

func TestCompareWindow(t *testing.T) {
	content := "     7\tseven\n     8\teight\n"
	if err := compareWindow(content, 7, []byte("seven\neight\n")); err != nil {
		t.Fatal(err)
	}
	if err := compareWindow(content, 6, []byte("seven\neight\n")); err == nil {
		t.Fatal("wrong gutter accepted")
	}
	if err := compareWindow(content, 7, []byte("seven\nEIGHT\n")); err == nil {
		t.Fatal("wrong text accepted")
	}
}

func TestFailedEnvelopeIsNotEquivalent(t *testing.T) {
	env := `{"ok":false,"error":{"code":"PATH_ESCAPE","message":"no"}}`
	if err := checkOK([]byte(env), nil); err == nil || !strings.Contains(err.Error(), "PATH_ESCAPE") {
		t.Fatalf("got %v", err)
	}
}

func TestMedian(t *testing.T) {
	ms := func(n ...int) (out []time.Duration) {
		for _, x := range n {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	if got := median(ms(5, 1, 3)); got != 3*time.Millisecond {
		t.Errorf("median odd = %v", got)
	}
	if got := median(ms(4, 1, 3, 2)); got != 2500*time.Microsecond {
		t.Errorf("median even = %v", got)
	}
}

func TestSelectRows(t *testing.T) {
	if _, err := selectRows("list,nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown row accepted: %v", err)
	}
	sel, err := selectRows(" list ,read-64k")
	if err != nil || !sel["list"] || !sel["read-64k"] || sel["startup"] {
		t.Fatalf("selectRows = %v, %v", sel, err)
	}
}
