package edit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// The tests in this file pin what an edit envelope and an approval title
// say, rules that mutation testing (scripts/mutants) found undefended: the
// bounds of its lists and diff preview, the counts, and the titles a human
// approves.

// The diff preview is inline up to maxToolResultChars and cut past it, and
// the summary then says where the whole diff is.
func TestResultDiffPreviewBound(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": strings.Repeat("line\n", 400)})
	tx := previewed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"`+strings.Repeat("other\\n", 400)+`"}]`)
	diff, _ := os.ReadFile(filepath.Join(txDir(ws, tx.ID), "changes.diff"))
	for _, c := range []struct {
		limit int
		cut   bool
	}{{len(diff), false}, {len(diff) - 1, true}} {
		ws.Settings.MaxToolResultChars = c.limit
		env := result(ws, tx, "")
		r := resultOf(t, env)
		if r.DiffTruncated != c.cut || (r.DiffPreview == string(diff)) == c.cut || strings.Contains(env.Summary, "cut at") != c.cut {
			t.Errorf("limit %d (diff %d): truncated %v, preview %d chars, summary %q", c.limit, len(diff), r.DiffTruncated, len(r.DiffPreview), env.Summary)
		}
	}
}

// Operations, files and directories list at most ListCap entries; the
// flags say when there are more.
func TestResultListCap(t *testing.T) {
	for _, n := range []int{ListCap, ListCap + 1} {
		ws := planWS(t, nil)
		var o []string
		for i := 0; i < n; i++ {
			o = append(o, fmt.Sprintf(`{"type":"create","path":"f%02d","content":""}`, i))
		}
		tx := previewed(t, ws, "["+strings.Join(o, ",")+"]")
		var d []string
		for i := 0; i < n; i++ {
			d = append(d, fmt.Sprintf(`{"type":"mkdir","path":"d%02d"}`, i))
		}
		dtx := previewed(t, ws, "["+strings.Join(d, ",")+"]")
		over := n > ListCap
		r, dr := resultOf(t, result(ws, tx, "")), resultOf(t, result(ws, dtx, ""))
		if r.OperationsTruncated != over || r.FilesTruncated != over || dr.DirectoriesTruncated != over || len(r.Files) != ListCap || len(dr.Directories) != ListCap || r.FileCount != n {
			t.Errorf("%d entries: truncated ops %v files %v dirs %v, %d files listed of %d", n, r.OperationsTruncated, r.FilesTruncated, dr.DirectoriesTruncated, len(r.Files), r.FileCount)
		}
	}
}

// committed is true only for an applied transaction, and an applied or
// rolled-back one is kept with high importance.
func TestResultCommittedAndImportance(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	tx := previewed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"}]`)
	for _, c := range []struct {
		status     string
		committed  bool
		importance string
	}{{Planned, false, envelope.Normal}, {Applied, true, envelope.High}, {RolledBack, false, envelope.High}, {Failed, false, envelope.Normal}} {
		tx.Status = c.status
		env := result(ws, tx, "")
		if resultOf(t, env).Committed != c.committed || env.Retention.Importance != c.importance {
			t.Errorf("%s: committed %v importance %s", c.status, resultOf(t, env).Committed, env.Retention.Importance)
		}
	}
}

// An operation summary measures its texts (the search only of a replace)
// and counts a last line without a newline.
func TestSummarizeMeasures(t *testing.T) {
	content, repl := "a\nb", "x\n"
	got := summarize([]Op{
		{Type: "create", Path: "f", Content: &content},
		{Type: "replace", Path: "f", Search: "a\nb\n\nc", Replacement: &repl},
		{Type: "delete", Path: "g", Search: "ignored"},
	})
	if *got[0].Bytes != 3 || *got[0].Lines != 2 || got[0].SHA256 != sha([]byte(content)) || got[0].SearchBytes != nil {
		t.Errorf("create: %+v", got[0])
	}
	if *got[1].SearchLines != 4 || *got[1].SearchBytes != 6 || *got[1].ReplacementLines != 1 || *got[1].ReplacementBytes != 2 {
		t.Errorf("replace: %+v", got[1])
	}
	if got[2].SearchBytes != nil || got[2].SearchSHA256 != "" {
		t.Errorf("delete: %+v", got[2])
	}
	empty := ""
	if got := summarize([]Op{{Type: "create", Content: &empty}}); *got[0].Lines != 0 || *got[0].Bytes != 0 {
		t.Errorf("empty: %+v", got[0])
	}
}

// An approval title names each change with its line counts for a commit,
// the undoing change without counts for a rollback, new directories, at
// most titleFiles entries, and the id alone when nothing is listed.
func TestApprovalTitle(t *testing.T) {
	tx := &Transaction{ID: "tx_t", Files: []FileChange{
		{Path: "n", Change: "create", Additions: 2},
		{Path: "m", Change: "modify", Additions: 1, Deletions: 3},
		{Path: "r", Change: "modify", Deletions: 1},
		{Path: "d", Change: "delete", Deletions: 4},
		{Path: "z", Change: "modify"},
	}, Directories: []DirChange{{Path: "new"}, {Path: "old", ExistedBefore: true}}}
	if got, want := title("Commit", tx), "Commit tx_t: create n (+2), modify m (+1 \u22123), modify r (\u22121), delete d (\u22124), modify z, mkdir new"; got != want {
		t.Errorf("commit title\n%q, want\n%q", got, want)
	}
	if got, want := title("Roll back", tx), "Roll back tx_t: delete n, restore m, restore r, restore d, restore z, remove directory new"; got != want {
		t.Errorf("rollback title\n%q, want\n%q", got, want)
	}
	if got := title("Commit", &Transaction{ID: "tx_e", Directories: []DirChange{{Path: "old", ExistedBefore: true}}}); got != "Commit tx_e" {
		t.Errorf("empty title %q", got)
	}
	many := &Transaction{ID: "tx_m"}
	for i := 0; i < titleFiles; i++ {
		many.Files = append(many.Files, FileChange{Path: fmt.Sprint(i), Change: "create"})
	}
	if got := title("Commit", many); strings.Contains(got, "more") || !strings.HasSuffix(got, ", create 9") {
		t.Errorf("%d files: %q", titleFiles, got)
	}
	many.Files = append(many.Files, FileChange{Path: "10", Change: "create"}, FileChange{Path: "11", Change: "create"})
	if got := title("Commit", many); !strings.HasSuffix(got, ", create 9, and 2 more") {
		t.Errorf("%d files: %q", titleFiles+2, got)
	}
}

// The summary counts files by change and directories, in the singular for
// one, and says "no changes" when there are none.
func TestSummaryCounts(t *testing.T) {
	for _, c := range []struct {
		tx   Transaction
		want string
	}{
		{Transaction{Files: []FileChange{{Change: "create"}, {Change: "modify"}, {Change: "modify"}, {Change: "delete"}}, Directories: []DirChange{{Path: "d"}}}, "1 created, 2 modified, 1 deleted, 1 directory"},
		{Transaction{Files: []FileChange{{Change: "delete"}}, Directories: []DirChange{{Path: "d"}, {Path: "e"}}}, "1 deleted, 2 directories"},
		{Transaction{}, "no changes"},
	} {
		if got := counts(&c.tx); got != c.want {
			t.Errorf("counts = %q, want %q", got, c.want)
		}
	}
}

// The envelope's artifacts are the files the transaction directory holds:
// a missing one is left out, not listed empty.
func TestArtifactsOnlyPresentFiles(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	tx := previewed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"}]`)
	if got := artifacts(ws, tx); len(got) != 2 || got[0].Kind != "diff" || got[1].Kind != "review" {
		t.Fatalf("artifacts %+v", got)
	}
	os.Remove(filepath.Join(txDir(ws, tx.ID), "changes.diff"))
	if got := artifacts(ws, tx); len(got) != 1 || got[0].Kind != "review" {
		t.Errorf("without changes.diff: %+v", got)
	}
	env, err := Show(context.Background(), ws, &TxRequest{TransactionID: tx.ID})
	if err != nil || txID(t, env) != tx.ID {
		t.Errorf("show: %v", err)
	}
}

// list returns the newest transactions first, at most limit of them with
// the total, says when it shows fewer than there are, lists the files and
// directories of each, and skips entries that are not transactions.
func TestListNewestFirst(t *testing.T) {
	ctx := context.Background()
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	var made []string
	for i := 0; i < 12; i++ {
		made = append(made, previewed(t, ws, fmt.Sprintf(`[{"type":"create","path":"f%02d","content":""},{"type":"mkdir","path":"d%02d"}]`, i, i)).ID)
	}
	os.MkdirAll(filepath.Join(ws.Store.Path("transactions"), "not-a-transaction"), 0o755)
	os.WriteFile(filepath.Join(ws.Store.Path("transactions"), "tx_file"), nil, 0o644)
	list := func(limit int) (envelope.Envelope, []Summary) {
		t.Helper()
		env, err := List(ctx, ws, &ListRequest{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		data := env.Data.(map[string]any)
		if data["total"] != 12 {
			t.Errorf("total %v, want 12", data["total"])
		}
		return env, data["transactions"].([]Summary)
	}
	env, got := list(3)
	if len(got) != 3 || got[0].ID != made[11] || got[2].ID != made[9] || env.Summary != "12 transactions, showing the newest 3." {
		t.Errorf("limit 3: %d listed, first %s, summary %q", len(got), got[0].ID, env.Summary)
	}
	if e := got[0]; strings.Join(e.Files, ",") != "f11" || strings.Join(e.Directories, ",") != "d11" || e.Destructive {
		t.Errorf("entry %+v", e)
	}
	env, got = list(0)
	if len(got) != 12 || env.Summary != "12 transactions." || len(env.Retention.Facts) != 10 {
		t.Errorf("default limit: %d listed, summary %q, %d facts", len(got), env.Summary, len(env.Retention.Facts))
	}
	if _, err := List(ctx, ws, &ListRequest{Limit: 101}); err == nil {
		t.Error("limit 101 accepted")
	}
	// A damaged record fails the listing rather than being skipped unseen.
	os.WriteFile(filepath.Join(txDir(ws, made[11]), "transaction.json"), []byte("{"), 0o644)
	if _, err := List(ctx, ws, &ListRequest{Limit: 1}); err == nil {
		t.Error("a damaged record listed")
	}
	// No transactions directory at all: an empty listing.
	env, err := List(ctx, planWS(t, nil), &ListRequest{})
	if err != nil || env.Summary != "0 transactions." {
		t.Errorf("empty: %v %q", err, env.Summary)
	}
}
