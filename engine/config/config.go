// Package config owns the human's side of settings: listing and reading
// them, `aw config set` (a human verb that edits .agentic/config.json,
// keeping its comments), and `aw init`. Settings themselves are parsed and
// validated by the workspace package; this package never widens a call.
package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// ListRequest takes no arguments.
type ListRequest struct{}

// GetRequest names one key.
type GetRequest struct {
	Key string `json:"key" doc:"the dotted setting name, e.g. read.defaultLines (config list shows them all)"`
}

// SetRequest sets one key to a value written as on the command line (JSON
// for lists and objects, bare words for strings).
type SetRequest struct {
	Key   string `json:"key" doc:"the dotted setting name, e.g. commands.enabled"`
	Value string `json:"value" doc:"the value as typed on the command line: a number, true or false, a string, or a JSON array or object for lists and maps"`
}

// Setting is one key with its effective value. In a listing, Source is
// where the value came from: "default", or the file that set it last (the
// user config, then the workspace's), and Changed says it differs from
// the default.
type Setting struct {
	Key     string `json:"key"`
	Value   any    `json:"value"`
	Doc     string `json:"doc,omitempty"`
	Source  string `json:"source,omitempty"`
	Changed bool   `json:"changed"`
}

// List returns every setting with its effective value and where it came from.
func List(ctx context.Context, ws *workspace.Workspace, req *ListRequest) (envelope.Envelope, error) {
	files := []string{}
	for _, f := range ws.SettingsFiles {
		files = append(files, displayPath(ws, f))
	}
	setBy := sources(ws)
	var out []Setting
	changed := 0
	for _, k := range workspace.Keys() {
		s := describe(ws, k, setBy)
		if s.Changed {
			changed++
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	env := envelope.New("", fmt.Sprintf("%d settings, %d changed from the default; permission mode %s (%d).", len(out), changed, workspace.ModeName(ws.Settings.PermissionMode), ws.Settings.PermissionMode),
		map[string]any{"settings": out, "files": files})
	env.Retention.Importance = envelope.Low
	env.Omit("data.settings")
	env.Fact("permission mode %s (%d)", workspace.Title(workspace.ModeName(ws.Settings.PermissionMode)), ws.Settings.PermissionMode)
	return env, nil
}

// Get returns one setting.
func Get(ctx context.Context, ws *workspace.Workspace, req *GetRequest) (envelope.Envelope, error) {
	k, err := workspace.LookupKey(req.Key)
	if err != nil {
		return envelope.Envelope{}, err
	}
	s := describe(ws, k, sources(ws))
	raw, _ := json.Marshal(s.Value)
	env := envelope.New("", fmt.Sprintf("%s = %s", k.Name, raw), s)
	env.Retention.Importance = envelope.Low
	env.Fact("%s = %s", k.Name, raw)
	return env, nil
}

// sources maps each key a settings file sets to that file (later files
// win, as when loading).
func sources(ws *workspace.Workspace) map[string]string {
	setBy := map[string]string{}
	for _, f := range ws.SettingsFiles {
		for k := range workspace.FileKeys(f) {
			setBy[k] = displayPath(ws, f)
		}
	}
	return setBy
}

// describe is one key's effective value, where it came from and whether it
// differs from the default.
func describe(ws *workspace.Workspace, k workspace.Key, setBy map[string]string) Setting {
	v := ws.Settings.Get(k)
	now, _ := json.Marshal(v)
	def, _ := json.Marshal(defaults.Get(k))
	source := setBy[k.Name]
	if source == "" {
		source = "default"
	}
	return Setting{Key: k.Name, Value: v, Doc: k.Doc, Source: source, Changed: string(now) != string(def)}
}

var defaults = workspace.Defaults()

// Set changes one key in the workspace's .agentic/config.json. It is a
// human verb: an agent cannot change its own policy.
func Set(ctx context.Context, ws *workspace.Workspace, req *SetRequest) (envelope.Envelope, error) {
	k, err := workspace.LookupKey(req.Key)
	if err != nil {
		return envelope.Envelope{}, err
	}
	value, err := workspace.ParseValue(k, req.Value)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if err := gate.RequireHuman(ws, "`aw config set`"); err != nil {
		return envelope.Envelope{}, err
	}
	path := ws.StatePath("config.json")
	old := ws.Settings.Get(k)
	unlock, err := ws.Store.Lock()
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer unlock()
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		raw = Template(nil)
	} else if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot read %s: %v", path, err)
	}
	updated, err := patch(raw, k.Name, value)
	if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "cannot update .agentic/config.json: %v; fix the file by hand (it was left as it is)", err)
	}
	// Validate the whole result as the next call will read it.
	check := workspace.Defaults()
	if err := workspace.DecodeSettings(&check, updated, path); err != nil {
		return envelope.Envelope{}, err
	}
	if err := check.Validate(); err != nil {
		return envelope.Envelope{}, err
	}
	if err := store.WriteFile(path, updated, 0o644); err != nil {
		return envelope.Envelope{}, err
	}
	oldJSON, _ := json.Marshal(old)
	newJSON, _ := json.Marshal(value)
	env := envelope.New("", fmt.Sprintf("Set %s = %s (was %s) in .agentic/config.json.", k.Name, newJSON, oldJSON),
		map[string]any{"key": k.Name, "value": value, "previous": old, "path": ".agentic/config.json"})
	env.Fact("%s = %s (was %s)", k.Name, newJSON, oldJSON)
	return env, nil
}

// patch sets a dotted key in a hujson document, creating parent objects and
// keeping comments and formatting elsewhere.
func patch(raw []byte, key string, value any) ([]byte, error) {
	doc, err := hujson.Parse(raw)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(key, ".")
	var ops []map[string]any
	std, _ := hujson.Standardize(append([]byte(nil), raw...))
	var tree map[string]any
	if err := json.Unmarshal(std, &tree); err != nil {
		return nil, err
	}
	node := tree
	for i := 0; i < len(parts)-1; i++ {
		ptr := "/" + strings.Join(parts[:i+1], "/")
		next, ok := node[parts[i]].(map[string]any)
		if !ok {
			ops = append(ops, map[string]any{"op": "add", "path": ptr, "value": map[string]any{}})
			next = map[string]any{}
		}
		node = next
	}
	ops = append(ops, map[string]any{"op": "add", "path": "/" + strings.Join(parts, "/"), "value": value})
	patchJSON, _ := json.Marshal(ops)
	if err := doc.Patch(patchJSON); err != nil {
		return nil, err
	}
	doc.Format()
	return doc.Pack(), nil
}

// Template is the commented default config `aw init` writes: every key
// with its default, commented out, and the values in set uncommented.
func Template(set map[string]any) []byte {
	var b strings.Builder
	b.WriteString(`// aw settings for this workspace. JSON with // comments.
// Human-owned: agents cannot write .agentic/, and changes are made with
// ` + "`aw config set KEY VALUE`" + ` in your own terminal. Every key is listed with its
// default; uncomment a line (or use config set) to change it.
{
`)
	defaults := workspace.Defaults()
	group := ""
	for _, k := range workspace.Keys() {
		g, leaf := "", k.Name
		if i := strings.IndexByte(k.Name, '.'); i >= 0 {
			g, leaf = k.Name[:i], k.Name[i+1:]
		}
		if g != group {
			if group != "" {
				b.WriteString("  },\n")
			}
			if g != "" {
				fmt.Fprintf(&b, "  %q: {\n", g)
			}
			group = g
		}
		indent := "  "
		if g != "" {
			indent = "    "
		}
		v, isSet := set[k.Name]
		if !isSet {
			v = defaults.Get(k)
		}
		raw, _ := json.Marshal(v)
		fmt.Fprintf(&b, "%s// %s: %s\n", indent, leaf, k.Doc)
		if isSet {
			fmt.Fprintf(&b, "%s%q: %s,\n", indent, leaf, raw)
		} else {
			fmt.Fprintf(&b, "%s// %q: %s,\n", indent, leaf, raw)
		}
	}
	if group != "" {
		b.WriteString("  },\n")
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

func displayPath(ws *workspace.Workspace, p string) string {
	if rel, err := filepath.Rel(ws.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}
