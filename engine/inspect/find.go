package inspect

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// FindRequest is the argument object of inspect.find.
type FindRequest struct {
	Pattern    string `json:"pattern" doc:"glob with ** for any depth; without a slash it matches file names at any depth ('*.go'), with one it matches paths relative to path ('cmd/**/main.go')"`
	Path       string `json:"path,omitempty" doc:"directory to search from, relative to the workspace root; default: the whole workspace"`
	MaxResults int    `json:"max_results,omitempty" doc:"most paths returned, 1 to 100000; default 1000"`
}

// FindData is data of inspect.find; scripts rely on its field names.
type FindData struct {
	Pattern   string   `json:"pattern"`
	Path      string   `json:"path"`
	Paths     []string `json:"paths"`
	Truncated bool     `json:"truncated"`
	Total     int      `json:"total"`
	Shown     int      `json:"shown"`
}

// Find lists the paths under a directory that match a glob, honouring
// .gitignore, list.ignore and denyPaths.
func Find(ctx context.Context, ws *workspace.Workspace, req *FindRequest) (envelope.Envelope, error) {
	pat := strings.TrimSpace(req.Pattern)
	if pat == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "find needs a glob: `aw inspect find '**/*.go' [PATH]`").With("field", "pattern")
	}
	anchored := strings.Contains(strings.TrimSuffix(pat, "/"), "/")
	pat = strings.Trim(pat, "/")
	if !doublestar.ValidatePattern(pat) {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "%q is not a valid glob (unbalanced [ or a bad escape)", req.Pattern).With("field", "pattern")
	}
	limit := req.MaxResults
	switch {
	case limit < 0:
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "max_results must not be negative").With("field", "max_results")
	case limit == 0:
		limit = defaultMaxResults
	case limit > maxMaxResults:
		limit = maxMaxResults
	}
	base, fi, err := walkBase(ws, req.Path)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if !fi.IsDir() {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "%s is a file; find searches a directory (use `aw inspect stat %s` for one file)", display(base.Rel), display(base.Rel)).With("path", display(base.Rel))
	}
	prefix := ""
	if base.Rel != "." && base.Rel != "" {
		prefix = base.Rel + "/"
	}
	match := func(rel string) bool {
		if !anchored {
			ok, _ := doublestar.Match(pat, path.Base(rel))
			return ok
		}
		ok, _ := doublestar.Match(pat, strings.TrimPrefix(rel, prefix))
		return ok
	}
	var mu sync.Mutex
	var found []string
	take := func(_ *walker, e entry) {
		if match(e.rel) {
			mu.Lock()
			found = append(found, e.rel)
			mu.Unlock()
		}
	}
	w := &walk{ws: ws, base: base, ignore: walkIgnore(ws), visit: take, visitDir: take}
	w.run(ctx, nil)
	sort.Strings(found)
	d := &FindData{Pattern: req.Pattern, Path: display(base.Rel)}
	if len(found) > limit {
		found, d.Truncated = found[:limit], true
	}
	d.Paths, d.Total = found, len(found)
	env := envelope.New("", "", d)
	env.Retention.Importance = envelope.Low
	env.Omit("data.paths")
	budget := ws.Settings.MaxToolResultChars - 1000
	used := 0
	for _, p := range found {
		if used += jsonLen(p) + 1; used > budget {
			break
		}
		d.Shown++
	}
	if d.Shown < len(found) {
		art, err := ws.Store.WriteArtifact("find", "find.txt", []byte(strings.Join(found, "\n")+"\n"), fmt.Sprintf("all %d paths matching %q, one per line", len(found), req.Pattern))
		if err != nil {
			return envelope.Envelope{}, err
		}
		env.Artifacts = append(env.Artifacts, art)
		d.Paths = found[:d.Shown]
		env.Fact("all %d paths matching %q in %s", len(found), req.Pattern, art.Path)
	}
	if d.Paths == nil {
		d.Paths = []string{}
	}
	switch {
	case d.Total == 0:
		env.Summary = fmt.Sprintf("No path matches %q under %s", req.Pattern, d.Path)
	default:
		env.Summary = fmt.Sprintf("%s match %q under %s", plural(d.Total, "path", "paths"), req.Pattern, d.Path)
	}
	if d.Truncated {
		env.Summary += fmt.Sprintf("; stopped at --max-results %d (narrow the glob or PATH, or raise it)", limit)
	}
	if len(env.Artifacts) > 0 {
		env.Summary += fmt.Sprintf("; %d shown inline, all in %s", d.Shown, env.Artifacts[0].Path)
	}
	return env, nil
}
