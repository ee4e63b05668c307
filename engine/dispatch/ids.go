package dispatch

import (
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// An id may be given by a unique prefix (`aw edit commit tx_06h3`), on the
// command line and over MCP alike. Every id aw mints is "<kind>_<time-
// ordered suffix>"; the kinds below are the ones a caller names, each with
// where its ids live. A request's id field (id or *_id) whose value is no
// id that exists but the prefix of exactly one is replaced by it; a prefix
// of several is INVALID_INPUT naming them; anything else is left for the
// action to refuse as it always has (NOT_FOUND).
var idKinds = map[string]func(ws *workspace.Workspace) []string{
	"approval": func(ws *workspace.Workspace) []string {
		s, err := gate.Load(ws, time.Now())
		if err != nil {
			return nil
		}
		var ids []string
		for _, r := range s.Records {
			ids = append(ids, r.ID)
		}
		return ids
	},
}

// idDirs are the kinds whose ids name entries of a store directory.
var idDirs = map[string]string{"tx": "transactions", "job": "jobs", "board": "tasks", "research": "research", "plan": "plans", "session": "browser"}

func init() {
	for kind, dir := range idDirs {
		idKinds[kind] = dirIDs(dir)
	}
}

// dirIDs lists the ids that name entries (directories, or NAME.json files)
// of a store directory.
func dirIDs(dir string) func(ws *workspace.Workspace) []string {
	return func(ws *workspace.Workspace) []string {
		entries, _ := os.ReadDir(ws.StatePath(dir))
		seen := map[string]bool{}
		var ids []string
		for _, e := range entries {
			id := strings.TrimSuffix(e.Name(), ".json")
			if strings.Contains(id, "_") && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		return ids
	}
}

// IDs lists the ids of one kind ("tx", "job", ...) that exist, sorted; nil
// for a kind aw does not resolve. Shell completion offers them.
func IDs(ws *workspace.Workspace, kind string) []string {
	list := idKinds[kind]
	if list == nil {
		return nil
	}
	ids := list(ws)
	sort.Strings(ids)
	return ids
}

// expandIDs replaces every id field of req given by a unique prefix.
func expandIDs(ws *workspace.Workspace, req any) error {
	v := reflect.ValueOf(req)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		f := v.Field(i)
		if f.Kind() != reflect.String || !f.CanSet() || (name != "id" && !strings.HasSuffix(name, "_id")) {
			continue
		}
		full, err := expandID(ws, name, f.String())
		if err != nil {
			return err
		}
		f.SetString(full)
	}
	return nil
}

func expandID(ws *workspace.Workspace, field, given string) (string, error) {
	kind, _, ok := strings.Cut(given, "_")
	if !ok || idKinds[kind] == nil {
		return given, nil
	}
	// The common case, a whole id, costs one stat rather than a listing.
	if dir := idDirs[kind]; dir != "" {
		for _, name := range []string{given, given + ".json"} {
			if _, err := os.Lstat(ws.StatePath(dir, name)); err == nil {
				return given, nil
			}
		}
	}
	var matches []string
	for _, id := range IDs(ws, kind) {
		if id == given {
			return given, nil
		}
		if strings.HasPrefix(id, given) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return given, nil
	case 1:
		return matches[0], nil
	}
	shown := matches
	if len(shown) > 10 {
		shown = shown[:10]
	}
	return "", envelope.Errorf(envelope.InvalidInput, "%s %q is the start of %d ids (%s%s): give more of it",
		field, given, len(matches), strings.Join(shown, ", "), map[bool]string{true: ", ...", false: ""}[len(matches) > 10]).
		With("field", field).With("matches", shown)
}
