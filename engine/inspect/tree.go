package inspect

import (
	"context"
	"io/fs"

	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func init() { snapshot.Walk = Files }

// Files visits, concurrently, every file, symlink and special file of the
// workspace that a search sees: denyPaths, list.ignore, .gitignore and the
// state directory hidden, symlinks reported but never followed. rel is
// root-relative and slash-separated; typ is 0 for a regular file, else its
// type bits. It is how command snapshots see the tree.
func Files(ctx context.Context, ws *workspace.Workspace, visit func(rel, abs string, typ fs.FileMode)) error {
	base, err := ws.Jail.Resolve(".", workspace.Read)
	if err != nil {
		return err
	}
	w := &walk{ws: ws, base: base, ignore: walkIgnore(ws), visit: func(_ *walker, e entry) { visit(e.rel, e.abs, e.typ) }}
	w.run(ctx, nil)
	return ctx.Err()
}
