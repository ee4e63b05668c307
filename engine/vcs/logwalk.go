package vcs

import (
	"container/heap"
	"context"
	"errors"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	commitgraph "github.com/go-git/go-git/v5/plumbing/format/commitgraph/v2"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// logWalk is git log's revision walk: commits leave a queue newest first
// by committer time, and with paths each one is simplified as git's
// default history simplification does (see simplify).
type logWalk struct {
	rp    *repo
	paths []string
	graph commitgraph.Index // nil without a commit-graph file
	seq   int
	// The state of the paths in each root tree seen: a commit's tree is
	// compared once as the commit and once as its child's parent.
	states map[plumbing.Hash][]pathState
}

// logNode is what the walk needs of a commit. The commit-graph file has it
// without inflating the commit; the commit itself is decoded only when it
// is shown or the graph lacks it.
type logNode struct {
	hash    plumbing.Hash
	tree    plumbing.Hash
	parents []plumbing.Hash
	when    int64          // committer time, git log's order
	seq     int            // queue insertion order: git's tie-break
	commit  *object.Commit // nil until decoded
}

// pathState is one path's entry in a tree (mode 0 when absent).
type pathState struct {
	mode uint32
	hash plumbing.Hash
}

func (rp *repo) newLogWalk(paths []string) *logWalk {
	return &logWalk{rp: rp, paths: paths, graph: rp.objects().commitGraph(), states: map[plumbing.Hash][]pathState{}}
}

// walk appends up to limit commits reachable from start to d.
func (w *logWalk) walk(ctx context.Context, start plumbing.Hash, limit int, d *LogData) error {
	first, err := w.node(start)
	if err != nil {
		return vcsErr("reading commit "+start.String(), err)
	}
	q := &nodeQueue{first}
	seen := map[plumbing.Hash]bool{start: true}
	for q.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := heap.Pop(q).(*logNode)
		show, follow := true, n.parents
		if len(w.paths) > 0 {
			if show, follow, err = w.simplify(n); err != nil {
				return err
			}
		}
		if show {
			if len(d.Commits) == limit {
				d.More = true
				return nil
			}
			if n.commit == nil {
				if n.commit, err = w.rp.commit(n.hash); err != nil {
					return vcsErr("reading commit "+n.hash.String(), err)
				}
			}
			d.Commits = append(d.Commits, info(n.commit))
		}
		for _, p := range follow {
			if seen[p] {
				continue
			}
			seen[p] = true
			pn, err := w.node(p)
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				continue // a shallow clone's boundary
			}
			if err != nil {
				return vcsErr("reading commit "+p.String(), err)
			}
			heap.Push(q, pn)
		}
	}
	return nil
}

func (w *logWalk) node(h plumbing.Hash) (*logNode, error) {
	w.seq++
	if w.graph != nil {
		if i, err := w.graph.GetIndexByHash(h); err == nil {
			if cd, err := w.graph.GetCommitDataByIndex(i); err == nil {
				return &logNode{hash: h, tree: cd.TreeHash, parents: cd.ParentHashes, when: cd.When.Unix(), seq: w.seq}, nil
			}
		}
	}
	c, err := w.rp.commit(h)
	if err != nil {
		return nil, err
	}
	return &logNode{hash: h, tree: c.TreeHash, parents: c.ParentHashes, when: c.Committer.When.Unix(), seq: w.seq, commit: c}, nil
}

// simplify is git's default history simplification (TREESAME) for one
// commit: a commit whose paths equal one parent's is hidden and only that
// parent is followed (for a merge, the first such parent: a side branch
// that changed nothing there is not walked); a commit that differs from
// every parent is shown and all parents are followed; a root commit is
// shown when the paths exist in it.
func (w *logWalk) simplify(n *logNode) (bool, []plumbing.Hash, error) {
	mine, err := w.pathStates(n.tree)
	if err != nil {
		return false, nil, err
	}
	if len(n.parents) == 0 {
		for _, st := range mine {
			if st.mode != 0 {
				return true, nil, nil
			}
		}
		return false, nil, nil
	}
	for _, p := range n.parents {
		pn, err := w.parentTree(p)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return true, nil, nil // a shallow boundary: nothing to compare with
		}
		if err != nil {
			return false, nil, vcsErr("reading commit "+p.String(), err)
		}
		theirs, err := w.pathStates(pn)
		if err != nil {
			return false, nil, err
		}
		if equalStates(mine, theirs) {
			return false, []plumbing.Hash{p}, nil
		}
	}
	return true, n.parents, nil
}

// parentTree is a parent's root tree, from the commit-graph when it has it.
func (w *logWalk) parentTree(h plumbing.Hash) (plumbing.Hash, error) {
	if w.graph != nil {
		if i, err := w.graph.GetIndexByHash(h); err == nil {
			if cd, err := w.graph.GetCommitDataByIndex(i); err == nil {
				return cd.TreeHash, nil
			}
		}
	}
	c, err := w.rp.commit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// pathStates walks each path down from the root tree, reading only the
// trees along it.
func (w *logWalk) pathStates(root plumbing.Hash) ([]pathState, error) {
	if st, ok := w.states[root]; ok {
		return st, nil
	}
	out := make([]pathState, len(w.paths))
	for i, p := range w.paths {
		if p == "" {
			out[i] = pathState{modeDir, root}
			continue
		}
		th, rest := root, p
		for {
			name, sub, more := strings.Cut(rest, "/")
			mode, h, found, err := w.rp.treeLookup(th, name)
			if err != nil {
				return nil, vcsErr("reading tree "+th.String(), err)
			}
			if !found {
				break
			}
			if !more {
				out[i] = pathState{mode, h}
				break
			}
			if mode != modeDir {
				break
			}
			th, rest = h, sub
		}
	}
	w.states[root] = out
	return out, nil
}

func equalStates(a, b []pathState) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// nodeQueue orders commits newest first by committer time; equal times
// leave in insertion order, as in git's prio_queue.
type nodeQueue []*logNode

func (q nodeQueue) Len() int { return len(q) }
func (q nodeQueue) Less(i, j int) bool {
	if q[i].when != q[j].when {
		return q[i].when > q[j].when
	}
	return q[i].seq < q[j].seq
}
func (q nodeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *nodeQueue) Push(x any)   { *q = append(*q, x.(*logNode)) }
func (q *nodeQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}
