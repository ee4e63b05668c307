package edit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/inspect"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// result builds the envelope of a transaction in its current state; an
// empty summary gets the standard one for that state.
func result(ws *workspace.Workspace, tx *Transaction, summary string) envelope.Envelope {
	diff, _ := os.ReadFile(filepath.Join(txDir(ws, tx.ID), "changes.diff"))
	limit := ws.Settings.MaxToolResultChars
	preview, truncated := string(diff), false
	if len(preview) > limit {
		preview, truncated = envelope.Clip(preview, limit), true
	}
	ops := summarize(tx.Operations)
	r := &Result{
		TransactionID: tx.ID, Status: tx.Status, Destructive: tx.Destructive, DestructiveReasons: capped(tx.DestructiveReasons), Replacements: capped(tx.Replacements),
		Operations: capped(ops), OperationCount: len(ops), OperationsTruncated: len(ops) > ListCap,
		Files: capped(tx.Files), FileCount: len(tx.Files), FilesTruncated: len(tx.Files) > ListCap,
		Directories: capped(tx.Directories), DirectoryCount: len(tx.Directories), DirectoriesTruncated: len(tx.Directories) > ListCap,
		DiffPreview: preview, DiffTruncated: truncated,
		Committed: tx.Status == Applied, Error: envelope.Clip(tx.Error, errorCap), CreatedAt: tx.CreatedAt,
	}
	if summary == "" {
		summary = describe(tx)
		if truncated {
			summary += fmt.Sprintf(" The diff preview is cut at %d characters; the whole diff is in the changes.diff artifact.", limit)
		}
	}
	env := envelope.New("", summary, r)
	env.Artifacts = artifacts(ws, tx)
	env.Omit("data.diffPreview", "data.operations")
	env.Fact("transaction %s %s: %s", tx.ID, tx.Status, counts(tx))
	if tx.Destructive {
		env.Fact("destructive: %s", strings.Join(tx.DestructiveReasons, "; "))
	}
	if tx.Status == Applied || tx.Status == RolledBack {
		env.Retention.Importance = envelope.High
	}
	return env
}

// ListCap bounds every list an edit envelope carries (operations, files,
// directories, destructive reasons, replacements); the counts say how many
// there are and review.md holds them all.
const ListCap = 20

// errorCap bounds a transaction's recorded error inline.
const errorCap = 2000

func capped[T any](all []T) []T {
	if len(all) > ListCap {
		return all[:ListCap]
	}
	return all
}

// OpSummary is one operation as an envelope shows it: what it does and to
// which paths, with the size, line count and SHA-256 of each text it
// carries, never the text itself (an envelope stays bounded whatever the
// operation writes; changes.diff and review.md hold the whole).
type OpSummary struct {
	Type              string `json:"type"`
	Path              string `json:"path,omitempty"`
	From              string `json:"from,omitempty"`
	To                string `json:"to,omitempty"`
	Bytes             *int   `json:"bytes,omitempty"`
	Lines             *int   `json:"lines,omitempty"`
	SHA256            string `json:"sha256,omitempty"`
	SearchBytes       *int   `json:"searchBytes,omitempty"`
	SearchLines       *int   `json:"searchLines,omitempty"`
	SearchSHA256      string `json:"searchSha256,omitempty"`
	ReplacementBytes  *int   `json:"replacementBytes,omitempty"`
	ReplacementLines  *int   `json:"replacementLines,omitempty"`
	ReplacementSHA256 string `json:"replacementSha256,omitempty"`
	Overwrite         bool   `json:"overwrite,omitempty"`
	CreateIfMissing   bool   `json:"createIfMissing,omitempty"`
	ExpectedMatches   *int   `json:"expectedMatches,omitempty"`
	ReplaceAll        bool   `json:"replaceAll,omitempty"`
	StartLine         int    `json:"startLine,omitempty"`
	DeleteCount       int    `json:"deleteCount,omitempty"`
	IgnoreMissing     bool   `json:"ignoreMissing,omitempty"`
	ExpectSHA256      string `json:"expectSha256,omitempty"`
}

func summarize(ops []Op) []OpSummary {
	out := make([]OpSummary, len(ops))
	for i, op := range ops {
		s := OpSummary{Type: op.Type, Path: op.Path, From: op.From, To: op.To, Overwrite: op.Overwrite, CreateIfMissing: op.CreateIfMissing,
			ExpectedMatches: op.ExpectedMatches, ReplaceAll: op.ReplaceAll, StartLine: op.StartLine, DeleteCount: op.DeleteCount,
			IgnoreMissing: op.IgnoreMissing, ExpectSHA256: op.ExpectSHA256}
		if op.Content != nil {
			s.Bytes, s.Lines, s.SHA256 = measure(*op.Content)
		}
		if op.Type == "replace" {
			s.SearchBytes, s.SearchLines, s.SearchSHA256 = measure(op.Search)
		}
		if op.Replacement != nil {
			s.ReplacementBytes, s.ReplacementLines, s.ReplacementSHA256 = measure(*op.Replacement)
		}
		out[i] = s
	}
	return out
}

// measure is a text's size, line count (a last line without a newline
// counts) and SHA-256.
func measure(text string) (*int, *int, string) {
	n, lines := len(text), strings.Count(text, "\n")
	if n > 0 && !strings.HasSuffix(text, "\n") {
		lines++
	}
	sum := sha256.Sum256([]byte(text))
	return &n, &lines, hex.EncodeToString(sum[:])
}

// titleFiles is how many paths an approval title names.
const titleFiles = 10

// title says what a commit or rollback of tx will do, path by path with
// line counts: "Commit tx_…: create x.txt (+1), modify a.go (+3 −1)".
func title(verb string, tx *Transaction) string {
	var parts []string
	for _, f := range tx.Files {
		change := f.Change
		if verb != "Commit" { // a rollback undoes each change
			change = map[string]string{"create": "delete", "modify": "restore", "delete": "restore"}[f.Change]
		}
		counts := []string{}
		if f.Additions > 0 {
			counts = append(counts, fmt.Sprintf("+%d", f.Additions))
		}
		if f.Deletions > 0 {
			counts = append(counts, fmt.Sprintf("\u2212%d", f.Deletions))
		}
		if verb != "Commit" {
			counts = nil
		}
		part := change + " " + f.Path
		if len(counts) > 0 {
			part += " (" + strings.Join(counts, " ") + ")"
		}
		parts = append(parts, part)
	}
	for _, d := range tx.Directories {
		if !d.ExistedBefore {
			parts = append(parts, map[bool]string{true: "mkdir ", false: "remove directory "}[verb == "Commit"]+d.Path)
		}
	}
	if len(parts) == 0 {
		return verb + " " + tx.ID
	}
	if len(parts) > titleFiles {
		parts = append(parts[:titleFiles], fmt.Sprintf("and %d more", len(parts)-titleFiles))
	}
	return verb + " " + tx.ID + ": " + strings.Join(parts, ", ")
}

func describe(tx *Transaction) string {
	what := counts(tx)
	switch tx.Status {
	case Planned:
		s := fmt.Sprintf("Previewed %s: %s; nothing on disk changed. Commit it with workspace_edit {\"action\":\"commit\",\"transaction_id\":%q}.", tx.ID, what, tx.ID)
		if tx.Destructive {
			s += " It is destructive (" + strings.Join(tx.DestructiveReasons, "; ") + "): committing needs allowDestructiveEdits."
		}
		return s
	case Applied:
		return fmt.Sprintf("Committed %s: %s.", tx.ID, what)
	case RolledBack:
		return fmt.Sprintf("Rolled back %s: %s restored.", tx.ID, what)
	case Failed:
		return fmt.Sprintf("Transaction %s failed: %s", tx.ID, tx.Error)
	}
	return fmt.Sprintf("Transaction %s is %s: %s.", tx.ID, tx.Status, what)
}

func counts(tx *Transaction) string {
	var parts []string
	n := map[string]int{}
	for _, f := range tx.Files {
		n[f.Change]++
	}
	for _, c := range []string{"create", "modify", "delete"} {
		if n[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[c], map[string]string{"create": "created", "modify": "modified", "delete": "deleted"}[c]))
		}
	}
	if len(tx.Directories) > 0 {
		parts = append(parts, fmt.Sprintf("%d director%s", len(tx.Directories), map[bool]string{true: "y", false: "ies"}[len(tx.Directories) == 1]))
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}

// artifacts describes changes.diff and review.md.
func artifacts(ws *workspace.Workspace, tx *Transaction) []envelope.Artifact {
	var out []envelope.Artifact
	for _, a := range []struct{ name, kind, desc string }{
		{"changes.diff", "diff", "unified diff of the transaction"},
		{"review.md", "review", "what a human reviews: operations, files, diff"},
	} {
		path := filepath.Join(txDir(ws, tx.ID), a.name)
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		sum := sha256.Sum256(b)
		out = append(out, envelope.Artifact{Kind: a.kind, Path: ws.Store.Rel(path), SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(b)), Description: a.desc})
	}
	return out
}

// Show returns one transaction.
func Show(ctx context.Context, ws *workspace.Workspace, req *TxRequest) (envelope.Envelope, error) {
	tx, err := load(ws, req.TransactionID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	return result(ws, tx, ""), nil
}

// Summary is one transaction in a listing: the shape of inspect changes'
// transactions, and whether it is destructive.
type Summary struct {
	inspect.TransactionEntry
	Destructive bool `json:"destructive"`
}

// List returns transactions, newest first.
func List(ctx context.Context, ws *workspace.Workspace, req *ListRequest) (envelope.Envelope, error) {
	limit, err := envelope.Limit(req.Limit, 20, 100)
	if err != nil {
		return envelope.Envelope{}, err
	}
	all, err := ids(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	out := []Summary{}
	for _, id := range all {
		if len(out) == limit {
			break
		}
		tx, err := load(ws, id)
		if err != nil {
			return envelope.Envelope{}, err
		}
		files := make([]string, len(tx.Files))
		for i, f := range tx.Files {
			files[i] = f.Path
		}
		dirs := make([]string, len(tx.Directories))
		for i, d := range tx.Directories {
			dirs[i] = d.Path
		}
		out = append(out, Summary{TransactionEntry: inspect.NewTransactionEntry(tx.ID, tx.Status, tx.CreatedAt, files, dirs), Destructive: tx.Destructive})
	}
	summary := fmt.Sprintf("%d transactions", len(all))
	if len(all) > len(out) {
		summary += fmt.Sprintf(", showing the newest %d", len(out))
	}
	env := envelope.New("", summary+".", map[string]any{"transactions": out, "total": len(all)})
	env.Retention.Importance = envelope.Low
	for i, s := range out {
		if i == 10 {
			break
		}
		env.Fact("transaction %s %s", s.ID, s.Status)
	}
	return env, nil
}
