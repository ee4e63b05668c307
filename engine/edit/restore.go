package edit

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Restoration puts one file back to a recorded state: its content and
// mode, or its absence.
type Restoration struct {
	Path    string
	Exists  bool   // false: the file is removed
	Content []byte // for a symlink, its target
	Mode    fs.FileMode
	// Link says the recorded state is a symlink; Content is its target.
	// A link on the path now is removed or replaced as the link itself.
	Link bool
	// Expect is the sha256 the file must have now ("" : absent); a file
	// that changed since is refused as stale, at planning and at commit.
	Expect string
	// Over names a later change this restoration overwrites (forced):
	// the transaction is then destructive.
	Over string
	// Dir says the path is a directory: made again when Exists, else
	// removed after the files, only if it is then empty.
	Dir bool
}

// PlanRestore plans a transaction that restores files to recorded states
// (aw command undo). Contents are bytes, not text: a binary file or one
// with CRLF line ends comes back exactly. The transaction is committed,
// gated and rolled back like any other; note says where it came from.
func PlanRestore(ws *workspace.Workspace, note string, rs []Restoration) (envelope.Envelope, error) {
	if len(rs) == 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "nothing to restore")
	}
	p := newPlanner(ws)
	var ops []Op
	var made []DirChange
	var removed []string
	for i, r := range rs {
		if r.Dir {
			jp, err := ws.Jail.Resolve(r.Path, workspace.Write)
			if err != nil {
				return envelope.Envelope{}, err
			}
			if r.Exists {
				made = append(made, DirChange{Path: jp.Rel})
			} else {
				removed = append(removed, jp.Rel)
			}
			continue
		}
		op := Op{Type: "rewrite", Path: r.Path, ExpectSHA256: r.Expect}
		switch {
		case !r.Exists:
			op.Type = "delete"
		case r.Expect == "":
			op.Type = "create"
		}
		f, err := p.restoreTarget(i, op, r)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if r.Expect == "" && f.origExists {
			return envelope.Envelope{}, opErr(i, op, envelope.EditConflict, "%s exists again; run the undo again to see its state", f.rel).With("path", f.rel).With("reason", "stale")
		}
		if r.Over != "" {
			p.destructive("restore of %s over a later change (%s)", f.rel, r.Over)
		}
		f.exists, f.content, f.mode = r.Exists, r.Content, r.Mode.Perm()
		if r.Link {
			f.mode = linkMode
		}
		if !r.Exists {
			f.content = nil
		}
		ops = append(ops, op)
	}
	if ops == nil {
		ops = []Op{}
	}
	// Deepest first: a directory is empty only once those below it went.
	sort.SliceStable(removed, func(i, j int) bool { return strings.Count(removed[i], "/") > strings.Count(removed[j], "/") })
	files := p.changes()
	if len(files) == 0 && len(made) == 0 && len(removed) == 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "every file is already as recorded: nothing to restore")
	}
	tx := &Transaction{
		ID: store.NewID("tx"), Status: Planned, Operations: ops, Files: files, Directories: made, RemoveDirs: removed,
		Destructive: len(p.reasons) > 0, DestructiveReasons: p.reasons, OpsHash: gate.Hash(ops), Note: note, CreatedAt: time.Now().UTC(),
	}
	tx.emptyLists()
	tx.CommitHash = gate.Hash(struct {
		Action     string
		Files      []FileChange
		Made       []DirChange
		RemoveDirs []string
	}{"restore", files, made, removed})
	st, err := prepare(ws, tx, p)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if err := persist(ws, tx, st); err != nil {
		return envelope.Envelope{}, err
	}
	return result(ws, tx, ""), nil
}

// restoreTarget loads a restoration's path: as the link itself when a
// symlink is recorded or is there now, else like any write target.
func (p *planner) restoreTarget(i int, op Op, r Restoration) (*vfile, error) {
	if !r.Link {
		if fi, err := os.Lstat(filepath.Join(p.ws.Root, filepath.FromSlash(r.Path))); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p.target(i, op, r.Path)
		}
	}
	f, err := p.linkFile(i, op, r.Path)
	if err != nil {
		return nil, err
	}
	if err := p.claimFile(i, op, f); err != nil {
		return nil, err
	}
	return f, p.expect(i, op, f)
}
