package edit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// A transaction directory holds:
//
//	transaction.json   the record (operations, files with their hashes)
//	blobs/<sha256>     every distinct content commit writes or rollback restores, once
//	changes.diff       the unified diff
//	review.md          what a human reads before deciding
//
// Its total size is capped by edit.maxTransactionBytes, measured before
// anything is written, so a preview (which runs at the read tier) can
// never fill the disk: a hundred copies of one large file store it once
// and diff it once.

// repeatRefBytes is the size above which a file's diff that repeats an
// earlier one of the same transaction (same contents before and after) is
// written as a one-line reference instead of again. Small repeats stay in
// full: a reviewer reads them more easily than a reference.
const repeatRefBytes = 4096

// reviewDiffBytes bounds the diff inlined in review.md; the whole diff is
// changes.diff.
const reviewDiffBytes = 256 << 10

// stored is a transaction's directory, built in memory and measured.
type stored struct {
	blobs  []blob
	diff   string
	review string
	record []byte // transaction.json
}

type blob struct {
	sum  string
	data []byte
	// durable contents are fsynced: rollback and recovery depend on the
	// before contents; an after content is checked against its hash when
	// a commit reads it, so a torn one fails the commit cleanly.
	durable bool
}

// size is what the directory will take on disk, near enough.
func (st *stored) size() int {
	n := len(st.diff) + len(st.review) + len(st.record)
	for _, b := range st.blobs {
		n += len(b.data)
	}
	return n
}

// prepare builds everything persist writes and refuses, with nothing
// written, a transaction larger than edit.maxTransactionBytes.
func prepare(ws *workspace.Workspace, tx *Transaction, p *planner) (*stored, error) {
	limit := ws.Settings.Edit.MaxTransactionBytes
	st := &stored{}
	index := map[string]int{}
	add := func(sum string, data []byte, durable bool) {
		if i, ok := index[sum]; ok {
			st.blobs[i].durable = st.blobs[i].durable || durable
			return
		}
		index[sum] = len(st.blobs)
		st.blobs = append(st.blobs, blob{sum: sum, data: data, durable: durable})
	}
	for n := range tx.Files {
		c := &tx.Files[n]
		f := p.files[c.Path]
		if c.ExistedBefore {
			add(c.BeforeSHA256, f.origContent, true)
		}
		if f.exists {
			add(c.AfterSHA256, f.content, false)
		}
	}
	if n := st.size(); n > limit {
		return nil, tooLarge(tx, n, len(st.blobs), limit)
	}
	var diff strings.Builder
	type shown struct {
		path                 string
		additions, deletions int
	}
	seen := map[string]shown{}
	for n := range tx.Files {
		c := &tx.Files[n]
		f := p.files[c.Path]
		key := fmt.Sprint(c.BeforeSHA256, "|", c.AfterSHA256, "|", c.BeforeMode, "|", c.Mode)
		if first, ok := seen[key]; ok {
			c.Additions, c.Deletions = first.additions, first.deletions
			from, to := labels(c)
			fmt.Fprintf(&diff, "Files %s and %s: the same change as %s (+%d -%d lines), not repeated\n", from, to, first.path, c.Additions, c.Deletions)
		} else {
			d := unified(c, f.origContent, f.content)
			if len(d) > repeatRefBytes {
				seen[key] = shown{"b/" + c.Path, c.Additions, c.Deletions}
			}
			diff.WriteString(d)
		}
		if n := st.size() + diff.Len(); n > limit {
			return nil, tooLarge(tx, n, len(st.blobs), limit)
		}
	}
	st.diff = diff.String()
	st.review = review(tx, st.diff)
	raw, err := json.MarshalIndent(tx, "", "  ")
	if err != nil {
		return nil, err
	}
	st.record = append(raw, '\n')
	if n := st.size(); n > limit {
		return nil, tooLarge(tx, n, len(st.blobs), limit)
	}
	return st, nil
}

func tooLarge(tx *Transaction, size, blobs, limit int) error {
	return envelope.Errorf(envelope.InvalidInput,
		"this transaction would store %s under .agentic/ (%d files, %d distinct contents, their diff and review), over edit.maxTransactionBytes (%s): nothing was written. Split it into smaller transactions, or ask the human to raise the limit with `aw config set edit.maxTransactionBytes N`",
		byteSize(size), len(tx.Files), blobs, byteSize(limit)).
		With("bytes", size).With("limit", limit).With("setting", "edit.maxTransactionBytes")
}

// byteSize prints n exactly, and rounded when large.
func byteSize(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d bytes (%s)", n, store.HumanBytes(int64(n)))
}

// persist writes the transaction directory prepare built: the blobs
// (durable ones fsynced, with one fsync of the directory), changes.diff,
// review.md, and transaction.json last, so a directory without its record
// is an interrupted preview.
func persist(ws *workspace.Workspace, tx *Transaction, st *stored) error {
	dir := txDir(ws, tx.ID)
	blobs := filepath.Join(dir, "blobs")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		return envelope.Errorf(envelope.Internal, "cannot create %s: %v", ws.Store.Rel(blobs), err)
	}
	for _, b := range st.blobs {
		path := blobPath(ws, tx.ID, b.sum)
		var err error
		if b.durable {
			err = store.Replace(path, b.data, 0o600)
		} else {
			err = os.WriteFile(path, b.data, 0o600)
		}
		if err != nil {
			return envelope.Errorf(envelope.Internal, "cannot write %s: %v; check free space under the workspace", ws.Store.Rel(path), err)
		}
	}
	if err := store.SyncDir(blobs); err != nil {
		return err
	}
	if err := store.WriteFile(filepath.Join(dir, "changes.diff"), []byte(st.diff), 0o644); err != nil {
		return err
	}
	if err := store.WriteFile(filepath.Join(dir, "review.md"), []byte(st.review), 0o644); err != nil {
		return err
	}
	if err := store.WriteFile(filepath.Join(dir, "transaction.json"), st.record, 0o644); err != nil {
		return err
	}
	// A transaction planned again at commit keeps its directory: contents
	// its new record no longer names go, once that record is written.
	if ents, err := os.ReadDir(blobs); err == nil && len(ents) > len(st.blobs) {
		want := map[string]bool{}
		for _, b := range st.blobs {
			want[b.sum] = true
		}
		for _, e := range ents {
			if !want[e.Name()] {
				os.Remove(filepath.Join(blobs, e.Name()))
			}
		}
	}
	return nil
}

// review is review.md: what a human reads before deciding.
func review(tx *Transaction, diff string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Transaction %s\n\nStatus: %s. Created %s.\n\n", tx.ID, tx.Status, tx.CreatedAt.Format(time.RFC3339))
	if tx.Destructive {
		b.WriteString("**Destructive** (needs allowDestructiveEdits):\n\n")
		for _, r := range tx.DestructiveReasons {
			fmt.Fprintf(&b, "- %s\n", r)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Operations\n\n")
	for i, op := range tx.Operations {
		target := op.Path
		if op.From != "" {
			target = op.From + " -> " + op.To
		}
		fmt.Fprintf(&b, "%d. %s %s\n", i+1, op.Type, target)
	}
	b.WriteString("\n## Files\n\n")
	for _, f := range tx.Files {
		fmt.Fprintf(&b, "- %s %s (+%d -%d)\n", f.Change, f.Path, f.Additions, f.Deletions)
	}
	for _, d := range tx.Directories {
		state := "new"
		if d.ExistedBefore {
			state = "already existed"
		}
		fmt.Fprintf(&b, "- mkdir %s (%s)\n", d.Path, state)
	}
	shown, more := diff, ""
	if len(diff) > reviewDiffBytes {
		shown = diff[:strings.LastIndexByte(diff[:reviewDiffBytes], '\n')+1]
		more = fmt.Sprintf("\nThe diff is %d bytes; the rest is in changes.diff.\n", len(diff))
	}
	fmt.Fprintf(&b, "\n## Diff\n\n```diff\n%s```\n%s", shown, more)
	return b.String()
}
