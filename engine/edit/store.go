package edit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// txDir is .agentic/transactions/<id>.
func txDir(ws *workspace.Workspace, id string) string { return ws.Store.Path("transactions", id) }

// blobPath is where a transaction keeps one content: blobs/<sha256>. The
// store is content-addressed, so a content used by many files (a copy to
// a hundred paths, a hundred identical deletes) is stored once.
func blobPath(ws *workspace.Workspace, id, sum string) string {
	return filepath.Join(txDir(ws, id), "blobs", sum)
}

// legacyBlobPath is before/<n> or after/<n>, the layout of transactions
// recorded before content addressing; they must still commit and roll back.
func legacyBlobPath(ws *workspace.Workspace, id, side string, n int) string {
	return filepath.Join(txDir(ws, id), side, strconv.Itoa(n))
}

// load reads a transaction by id.
func load(ws *workspace.Workspace, id string) (*Transaction, error) {
	if id == "" {
		return nil, envelope.Errorf(envelope.InvalidInput, "transaction_id is required: `aw edit list` shows the transactions")
	}
	if !store.ValidID(id, "tx") {
		return nil, envelope.Errorf(envelope.NotFound, "%q is not a transaction id (tx_…); `aw edit list` shows the transactions", id).With("transactionId", id)
	}
	var tx Transaction
	found, err := ws.Store.ReadJSON(filepath.Join(txDir(ws, id), "transaction.json"), &tx)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, envelope.Errorf(envelope.NotFound, "there is no transaction %s; `aw edit list` shows the transactions", id).With("transactionId", id)
	}
	return &tx, nil
}

// save writes transaction.json atomically.
func save(ws *workspace.Workspace, tx *Transaction) error {
	return ws.Store.WriteJSON(filepath.Join(txDir(ws, tx.ID), "transaction.json"), tx)
}

// journalPath marks a commit or rollback in progress: it holds the id of
// the transaction whose files are being written. Every aw call checks it
// (Recover), so a process killed mid-commit is repaired by the next one.
func journalPath(ws *workspace.Workspace) string { return ws.Store.Path("transactions", "journal") }

func writeJournal(ws *workspace.Workspace, id string) error {
	return store.WriteFile(journalPath(ws), []byte(id+"\n"), 0o644)
}

func clearJournal(ws *workspace.Workspace) error {
	if err := os.Remove(journalPath(ws)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return store.SyncDir(filepath.Dir(journalPath(ws)))
}

// keyIndex maps idempotency keys to transactions.
type keyIndex map[string]keyEntry

type keyEntry struct {
	TransactionID string `json:"transactionId"`
	OpsHash       string `json:"opsHash"`
}

func keysPath(ws *workspace.Workspace) string { return ws.Store.Path("transactions", "keys.json") }

// ids lists transaction ids, newest first.
func ids(ws *workspace.Workspace) ([]string, error) {
	ents, err := os.ReadDir(ws.Store.Path("transactions"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot list transactions: %v", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && store.ValidID(e.Name(), "tx") {
			out = append(out, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out, nil
}

// readBlob reads the side ("before" or "after") content of file n, whose
// sha256 is want, and checks it against the hash: blobs/<want>, else the
// legacy before/<n> or after/<n>.
func readBlob(ws *workspace.Workspace, tx *Transaction, side string, n int, want string) ([]byte, error) {
	if len(want) != 64 || strings.Trim(want, "0123456789abcdef") != "" {
		return nil, envelope.Errorf(envelope.Internal, "transaction %s records %q as the %s hash of %s, not a sha256; the record is damaged: preview the edit again", tx.ID, want, side, tx.Files[n].Path)
	}
	b, err := os.ReadFile(blobPath(ws, tx.ID, want))
	if errors.Is(err, fs.ErrNotExist) {
		b, err = os.ReadFile(legacyBlobPath(ws, tx.ID, side, n))
	}
	if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "transaction %s lost its %s content of %s (%v); preview the edit again", tx.ID, side, tx.Files[n].Path, err)
	}
	if sha(b) != want {
		return nil, envelope.Errorf(envelope.Internal, "transaction %s's %s content of %s is damaged (hash mismatch); preview the edit again", tx.ID, side, tx.Files[n].Path)
	}
	return b, nil
}

func joinPaths(paths []string) string {
	if len(paths) > 10 {
		return strings.Join(paths[:10], ", ") + fmt.Sprintf(" and %d more", len(paths)-10)
	}
	return strings.Join(paths, ", ")
}
