package inspect

import (
	"context"
	"strings"

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

// Dirs visits every directory below rel (a root-relative directory, not
// itself) that a walk of the whole workspace would enter, each before its
// entries are read: a watch set in visit sees every later change in it.
// list.ignore is matched root-relative, as from the root.
func Dirs(ctx context.Context, ws *workspace.Workspace, rel string, visit func(rel, abs string)) error {
	base, err := ws.Jail.Resolve(rel, workspace.Read)
	if err != nil {
		return err
	}
	dir := func(wk *walker, e entry) { visit(e.rel, e.abs()) }
	w := &walk{ws: ws, base: base, ignore: walkIgnore(ws), rootIgnore: true, visit: func(*walker, entry) {}, visitDir: dir}
	w.run(ctx, nil)
	return ctx.Err()
}

// Seen reports whether a walk of the whole workspace visits rel, a
// root-relative path that need not exist (isDir says what it would be): no
// element of it is denied, on list.ignore, or gitignored. It is the walk's
// filter for one path, for a caller that learnt of the path from a watch.
func Seen(ws *workspace.Workspace, rel string, isDir bool) bool {
	return newSeer(ws).seen(rel, isDir)
}

// seer is Seen for many paths: each directory's ignore rules are read once.
type seer struct {
	ws     *workspace.Workspace
	ignore *workspace.Patterns
	rules  map[string]*ignoreRules // by parent directory
}

func newSeer(ws *workspace.Workspace) *seer {
	return &seer{ws: ws, ignore: walkIgnore(ws), rules: map[string]*ignoreRules{}}
}

func (s *seer) seen(rel string, isDir bool) bool {
	comps := splitRel(rel)
	if len(comps) == 0 {
		return true
	}
	parent := strings.Join(comps[:len(comps)-1], "/")
	rules, ok := s.rules[parent]
	if !ok {
		rules = ancestorRules(s.ws.Root, comps)
		s.rules[parent] = rules
	}
	for i := range comps {
		prefix := strings.Join(comps[:i+1], "/")
		if s.ws.Jail.DeniedBelow(prefix) || s.ignore.MatchBelow(prefix) || rules.ignored(comps[:i+1], isDir || i < len(comps)-1) {
			return false
		}
	}
	return true
}
