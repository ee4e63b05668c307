package edit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The tests in this file pin what a transaction stores and shows that
// mutation testing (scripts/mutants) found undefended: the size bound, the
// diff's references and counts, and review.md.

// prepared plans raw and builds its transaction directory in memory with
// a fixed id and time, so its size is the same on every run.
func prepared(t *testing.T, ws *workspace.Workspace, raw string) (*Transaction, *stored, error) {
	t.Helper()
	p := newPlanner(ws)
	if err := p.apply(ops(t, raw)); err != nil {
		t.Fatal(err)
	}
	tx := &Transaction{ID: "tx_0000000000000000000000000", Status: Planned, Operations: p.ops, Files: p.changes(), Directories: p.dirs, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	tx.emptyLists()
	st, err := prepare(ws, tx, p)
	return tx, st, err
}

// dirBytes is the size of every file under dir.
func dirBytes(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += int(fi.Size())
		}
		return nil
	})
	return n
}

// edit.maxTransactionBytes bounds what the transaction directory takes on
// disk: a transaction of exactly the limit is stored, one byte over is
// refused, and the refusal names a size over the limit.
func TestTransactionSizeBound(t *testing.T) {
	raw := `[{"type":"rewrite","path":"a.txt","content":"` + strings.Repeat("new line\\n", 50) + `"},{"type":"create","path":"b.txt","content":"b\n"}]`
	ws := planWS(t, map[string]string{"a.txt": strings.Repeat("old line\n", 50)})
	tx, st, err := prepared(t, ws, raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := persist(ws, tx, st); err != nil {
		t.Fatal(err)
	}
	size := dirBytes(t, txDir(ws, tx.ID))
	if st.size() != size {
		t.Fatalf("measured %d bytes, the directory takes %d", st.size(), size)
	}
	ws = planWS(t, map[string]string{"a.txt": strings.Repeat("old line\n", 50)})
	ws.Settings.Edit.MaxTransactionBytes = size
	if _, _, err := prepared(t, ws, raw); err != nil {
		t.Errorf("a transaction of exactly the limit: %v", err)
	}
	// Over the limit at every check: the contents alone, the contents and
	// the diff so far, or only with the review and record.
	blobs := len(strings.Repeat("old line\n", 50)) + len(strings.Repeat("new line\n", 50)) + len("b\n")
	for _, limit := range []int{size - 1, blobs, blobs - 1, blobs + len(st.diff)} {
		ws.Settings.Edit.MaxTransactionBytes = limit
		_, _, err := prepared(t, ws, raw)
		e, ok := err.(*envelope.Error)
		if !ok || e.Code != envelope.InvalidInput || e.Details["bytes"].(int) <= limit {
			t.Errorf("limit %d: %v, want a refusal naming more bytes than that", limit, err)
		}
	}
}

// A diff that repeats an earlier one of the transaction is written as a
// one-line reference once it is over repeatRefBytes; up to that size it is
// repeated in full, and the reference carries the first one's counts.
func TestRepeatedDiffReference(t *testing.T) {
	// createDiff is the diff of a create of n bytes of content.
	createDiff := func(text string) int {
		return len(unified(&FileChange{Path: "c/f1", Change: "create"}, nil, []byte(text)))
	}
	// Lines of 17 bytes (18 in the diff), then a last line grown a byte at
	// a time.
	text := strings.Repeat("0123456789abcdef\n", repeatRefBytes/18-2)
	for k := 0; k < 64; k++ {
		if createDiff(text+strings.Repeat("y", k)+"\n") == repeatRefBytes {
			text += strings.Repeat("y", k) + "\n"
			break
		}
	}
	if createDiff(text) != repeatRefBytes {
		t.Fatalf("no content gives a diff of exactly %d bytes", repeatRefBytes)
	}
	for _, c := range []struct {
		text string
		ref  bool
	}{{text, false}, {text + "x\n", true}} {
		ws := planWS(t, nil)
		_, st, err := prepared(t, ws, `[{"type":"create","path":"c/f1","content":`+quote(c.text)+`},{"type":"create","path":"c/f2","content":`+quote(c.text)+`}]`)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(c.text, "\n")
		ref := "Files /dev/null and b/c/f2: the same change as b/c/f1 (+" + strconv.Itoa(lines) + " -0 lines), not repeated\n"
		if got := strings.Contains(st.diff, ref); got != c.ref {
			t.Errorf("diff of %d bytes: reference %v, want %v", createDiff(c.text), got, c.ref)
		}
	}
}

// unified counts the added and deleted lines, not the headers; it labels
// a created file from /dev/null and a deleted one to /dev/null; a change of
// mode alone is shown as such.
func TestUnifiedCountsAndLabels(t *testing.T) {
	c := &FileChange{Path: "f", Change: "modify", ExistedBefore: true, Mode: 0o644, BeforeMode: 0o644}
	d := unified(c, []byte("a\nb\nc\n"), []byte("a\nB\nC\nD\n"))
	if c.Additions != 3 || c.Deletions != 2 || !strings.HasPrefix(d, "--- a/f\n+++ b/f\n") {
		t.Errorf("+%d -%d\n%s", c.Additions, c.Deletions, d)
	}
	c = &FileChange{Path: "f", Change: "delete", ExistedBefore: true}
	if d := unified(c, []byte("a\n"), nil); !strings.HasPrefix(d, "--- a/f\n+++ /dev/null\n") || c.Deletions != 1 || c.Additions != 0 {
		t.Errorf("delete: +%d -%d\n%s", c.Additions, c.Deletions, d)
	}
	c = &FileChange{Path: "f", Change: "create"}
	if d := unified(c, nil, []byte("a\n")); !strings.HasPrefix(d, "--- /dev/null\n+++ b/f\n") {
		t.Errorf("create:\n%s", d)
	}
	c = &FileChange{Path: "f", Change: "modify", ExistedBefore: true, Mode: 0o600, BeforeMode: 0o644}
	if d := unified(c, []byte("a\n"), []byte("a\n")); d != "--- a/f\n+++ b/f\nmode 644 -> 600\n" {
		t.Errorf("mode only: %q", d)
	}
	c = &FileChange{Path: "f", Change: "modify", ExistedBefore: true, Mode: 0o600, BeforeMode: 0o644}
	if d := unified(c, []byte("a\n"), []byte("b\n")); strings.Contains(d, "mode") || c.Additions != 1 {
		t.Errorf("mode and content: %q", d)
	}
	c = &FileChange{Path: "f", Change: "modify", ExistedBefore: true, Mode: 0o644, BeforeMode: 0o644}
	if d := unified(c, []byte("a\n"), []byte("a\n")); d != "" {
		t.Errorf("no change: %q", d)
	}
}

// A content is binary when a NUL byte is among its first 8000 bytes (the
// first one included) or it is not UTF-8; text is not.
func TestBinaryDetection(t *testing.T) {
	for text, want := range map[string]bool{
		"plain text\n":                     false,
		"\x00at the start":                 true,
		"in the middle\x00":                true,
		strings.Repeat("a", 8000) + "\x00": false,
		strings.Repeat("a", 7999) + "\x00": true,
		"\xff\xfe not utf-8":               true,
		"":                                 false,
	} {
		if got := binary([]byte(text)); got != want {
			t.Errorf("binary(%.20q… %d bytes) = %v, want %v", text, len(text), got, want)
		}
	}
}

// review.md lists every operation, numbered from 1, a copy or move as
// from -> to, and inlines the whole diff up to reviewDiffBytes, past which
// it cuts at a line end and points to changes.diff.
func TestReviewContents(t *testing.T) {
	tx := &Transaction{ID: "tx_x", Status: Planned, Operations: []Op{{Type: "rewrite", Path: "a.txt"}, {Type: "move", From: "b.txt", To: "c.txt"}}}
	r := review(tx, "diff\n")
	if !strings.Contains(r, "1. rewrite a.txt\n2. move b.txt -> c.txt\n") {
		t.Errorf("operations:\n%s", r)
	}
	exact := strings.Repeat(strings.Repeat("d", 63)+"\n", reviewDiffBytes/64)
	if r := review(tx, exact); strings.Contains(r, "the rest is in changes.diff") || !strings.Contains(r, exact+"```") {
		t.Error("a diff of exactly reviewDiffBytes is cut")
	}
	if r := review(tx, exact+"more\n"); !strings.Contains(r, "the rest is in changes.diff") || !strings.Contains(r, exact+"```") {
		t.Error("a diff over reviewDiffBytes is not cut at the line end before the bound")
	}
}

// A journal that cannot be removed is an error: left in place it would make
// every later call recover again.
func TestClearJournalReportsFailure(t *testing.T) {
	ws := planWS(t, nil)
	os.MkdirAll(filepath.Dir(journalPath(ws)), 0o755)
	if err := clearJournal(ws); err != nil {
		t.Errorf("no journal: %v", err)
	}
	os.MkdirAll(filepath.Join(journalPath(ws), "x"), 0o755)
	if err := clearJournal(ws); err == nil {
		t.Error("a journal that cannot be removed is not reported")
	}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"`
}

// A size in a refusal is exact, with a rounded form from 1 MiB up.
func TestByteSizeForms(t *testing.T) {
	for n, want := range map[int]string{
		1<<20 - 1: "1048575 bytes",
		1 << 20:   "1048576 bytes (1.0 MiB)",
		512:       "512 bytes",
	} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
