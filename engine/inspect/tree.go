package inspect

import (
	"context"

	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func init() { snapshot.Walk = Files }

// Files visits, with workers goroutines, every directory, file, symlink
// and special file of the workspace that a search sees: denyPaths,
// list.ignore, .gitignore and the state directory hidden, symlinks
// reported but never followed. Each visit gets the worker's index and the
// open parent directory, so a caller can keep one result per worker and
// stat relative to the directory. It is how command snapshots see the
// tree.
func Files(ctx context.Context, ws *workspace.Workspace, workers int, visit func(snapshot.Found)) error {
	base, err := ws.Jail.Resolve(".", workspace.Read)
	if err != nil {
		return err
	}
	found := func(wk *walker, e entry) {
		visit(snapshot.Found{Worker: wk.n, Rel: e.rel, Parent: e.parent, Name: e.name, Dir: e.dir, Type: e.typ})
	}
	w := &walk{ws: ws, base: base, ignore: walkIgnore(ws), workers: workers, visit: found, visitDir: found}
	w.run(ctx, nil)
	return ctx.Err()
}
