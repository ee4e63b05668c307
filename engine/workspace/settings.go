package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tailscale/hujson"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/policy/rule"
)

// Settings is every setting aw has. The JSON names are the keys of the
// config files; a dotted path through them (commands.allow) names a key on
// the command line. Settings come from files only: flags and environment
// may narrow what a call can do, never widen it.
type Settings struct {
	PermissionMode        int      `json:"permissionMode" doc:"0 Manual, 1 Plan, 2 Auto"`
	AllowDestructiveEdits bool     `json:"allowDestructiveEdits" doc:"destructive operations fail PROTECTED_PATH without it"`
	ProtectedPatterns     []string `json:"protectedPatterns" doc:"extra globs that stay readable but unwritable"`
	AllowPaths            []string `json:"allowPaths" doc:"extra read-only roots outside the workspace"`
	DenyPaths             []string `json:"denyPaths" doc:"globs neither readable nor writable, hidden from listings"`
	MaxToolResultChars    int      `json:"maxToolResultChars" doc:"bound on inline text in an envelope; the rest goes to an artifact"`
	Read                  struct {
		DefaultLines int `json:"defaultLines" doc:"lines in a read window"`
		MaxBytes     int `json:"maxBytes" doc:"byte ceiling of a read window (0: none)"`
	} `json:"read"`
	List struct {
		Ignore     []string `json:"ignore" doc:"globs hidden from listings (not blocked)"`
		MaxDepth   int      `json:"maxDepth" doc:"deepest level a listing reaches"`
		MaxEntries int      `json:"maxEntries" doc:"most entries a listing returns"`
	} `json:"list"`
	Commands struct {
		Enabled              bool              `json:"enabled" doc:"process execution"`
		MaxSeconds           int               `json:"maxSeconds" doc:"default and cap of timeout_seconds"`
		Allow                []string          `json:"allow" doc:"executable basenames that may run (empty: nothing may run)"`
		Deny                 []string          `json:"deny" doc:"executable basenames that never run"`
		DenyPatterns         rule.Patterns     `json:"denyPatterns" doc:"argv prefixes or /regex/ refused; an entry may be {pattern, match, noMatch} with examples checked when settings load"`
		Interpreter          string            `json:"interpreter" doc:"none (argv) or sh (parsed shell line)"`
		InheritEnv           []string          `json:"inheritEnv" doc:"environment variables passed to spawned processes"`
		Env                  map[string]string `json:"env" doc:"environment variables set for spawned processes"`
		MaxOutputBytes       int               `json:"maxOutputBytes" doc:"per-stream bytes kept in memory for a run"`
		MaxJobs              int               `json:"maxJobs" doc:"background jobs at once"`
		Sandbox              string            `json:"sandbox" doc:"OS sandbox of spawned processes: auto (the strongest available), require (refuse without one) or off"`
		Network              bool              `json:"network" doc:"spawned processes may reach the network"`
		TestCommand          string            `json:"testCommand" doc:"what aw command test runs: one command line, quotes respected, no shell operators, run without a shell in either interpreter (empty: detected from the project)"`
		Snapshot             string            `json:"snapshot" doc:"record what each job changes in the workspace, for aw command undo and diff: auto (while the tree is within the snapshot caps) or off"`
		SnapshotMaxFiles     int               `json:"snapshotMaxFiles" doc:"a tree with more files than this is not snapshotted (jobs then record no changes)"`
		SnapshotMaxBytes     int64             `json:"snapshotMaxBytes" doc:"bytes of file content a snapshot keeps; files past it are recorded by hash only and cannot be undone"`
		SnapshotMaxFileBytes int64             `json:"snapshotMaxFileBytes" doc:"a larger file is recorded by hash only and cannot be undone"`
	} `json:"commands"`
	VCS struct {
		Enabled bool `json:"enabled" doc:"version control tools"`
	} `json:"vcs"`
	GitHub struct {
		APIURL   string `json:"apiUrl" doc:"GitHub REST API base URL"`
		TokenEnv string `json:"tokenEnv" doc:"environment variable holding the GitHub token"`
	} `json:"github"`
	Tasks struct {
		Enabled bool `json:"enabled" doc:"To-Do boards"`
	} `json:"tasks"`
	Research struct {
		Enabled             bool   `json:"enabled" doc:"web research (reaches the network)"`
		Provider            string `json:"provider" doc:"auto, duckduckgo, wikipedia or searxng"`
		DuckDuckGoURL       string `json:"duckduckgoUrl" doc:"DuckDuckGo HTML endpoint"`
		WikipediaURL        string `json:"wikipediaUrl" doc:"MediaWiki API endpoint"`
		SearxngURL          string `json:"searxngUrl" doc:"SearXNG instance (empty: not used)"`
		AllowPrivateNetwork bool   `json:"allowPrivateNetwork" doc:"allow fetches to loopback and private addresses"`
	} `json:"research"`
	Browser struct {
		Enabled       bool   `json:"enabled" doc:"browser sessions"`
		AllowEvaluate bool   `json:"allowEvaluate" doc:"allow the evaluate control type"`
		Executable    string `json:"executable" doc:"Chromium executable (empty: search PATH)"`
		IdleSeconds   int    `json:"idleSeconds" doc:"seconds a session may go unused before it closes by itself"`
		MaxSessions   int    `json:"maxSessions" doc:"live sessions at once; opening one more closes the oldest idle one"`
	} `json:"browser"`
	Agents struct {
		Enabled       bool   `json:"enabled" doc:"durable sub-agents (aw agent, workspace_agent)"`
		AllowCommands bool   `json:"allowCommands" doc:"sub-agents may run commands (under the command policy; in Manual mode such a run is staged)"`
		AllowWeb      bool   `json:"allowWeb" doc:"sub-agents may use web research (needs research.enabled; in Manual mode such a run is staged)"`
		BaseURL       string `json:"baseUrl" doc:"base URL of an OpenAI-compatible chat-completions API, e.g. https://api.openai.com/v1 (aw posts to it + /chat/completions); everything a run reads is sent there"`
		Model         string `json:"model" doc:"model id sub-agents use unless a run names one (model_id)"`
		APIKeyEnv     string `json:"apiKeyEnv" doc:"environment variable holding the API key, sent as a bearer token (empty or unset: no key)"`
		Models        struct {
			Fast string `json:"fast" doc:"model id of the fast worker tier (mechanical work with a clear specification): aw agent run --worker-tier fast"`
			Good string `json:"good" doc:"model id of the good worker tier (design, judgment, reviewing): aw agent run --worker-tier good"`
		} `json:"models"`
	} `json:"agents"`
	Search struct {
		Embeddings struct {
			BaseURL   string `json:"baseUrl" doc:"base URL of an OpenAI-compatible embeddings API, e.g. https://api.openai.com/v1 (aw posts to it + /embeddings); empty: semantic search ranks with BM25 alone and nothing leaves the machine. When set, the query and the best chunks' text are sent there (web egress: it runs only where the permission mode lets web calls run)"`
			Model     string `json:"model" doc:"embedding model id (both baseUrl and model must be set)"`
			APIKeyEnv string `json:"apiKeyEnv" doc:"environment variable holding the API key, sent as a bearer token (empty or unset: no key)"`
		} `json:"embeddings"`
	} `json:"search"`
	MCP struct {
		ElicitApprovals bool `json:"elicitApprovals" doc:"aw mcp offers a staged approval to the human through a client that supports elicitation"`
	} `json:"mcp"`
	Edit struct {
		MaxTransactionBytes int `json:"maxTransactionBytes" doc:"bytes one transaction may store under .agentic/ (its distinct contents, diff and review); over it a preview is refused"`
	} `json:"edit"`
	Store struct {
		RetentionDays int `json:"retentionDays" doc:"days transactions, artifacts, job logs and browser profiles are kept before pruning"`
		MaxBytes      int `json:"maxBytes" doc:"size of .agentic/ above which the oldest prunable entries go first"`
	} `json:"store"`
	Broker struct {
		IdleSeconds int    `json:"idleSeconds" doc:"seconds the workspace's broker (which holds language servers) may go without a call before it exits"`
		Mode        string `json:"mode" doc:"daemon: one background broker per workspace keeps language servers, the debug session and interpreters warm across calls; per-call: no background process, each lsp call starts its server and ends it (seconds a call; debug and eval need the daemon). Platforms without unix sockets are always per-call"`
	} `json:"broker"`
	Host struct {
		URL      string `json:"url" doc:"base URL of the host.workspace server (aw serve) that aw host talks to; the token is sent to this URL only"`
		TokenEnv string `json:"tokenEnv" doc:"environment variable holding the bearer token for host.url (made with aw serve token add)"`
	} `json:"host"`
	Debug struct {
		TTLSeconds int `json:"ttlSeconds" doc:"seconds a debug session may live before it is ended (at most 1800)"`
	} `json:"debug"`
	Eval struct {
		TimeoutSeconds int `json:"timeoutSeconds" doc:"seconds an eval cell may go without output before it is interrupted (at most 3600; bridged tool calls do not count)"`
	} `json:"eval"`
	LSP struct {
		Servers            []LSPServer `json:"servers" doc:"language servers besides the built-in ones (gopls, pyright-langserver or pylsp, typescript-language-server, clangd); one with a built-in name replaces it"`
		DiagnosticsOnWrite bool        `json:"diagnosticsOnWrite" doc:"fold the diagnostics an edit commit or a command newly introduced into its result"`
		DiagnosticsWaitMs  int         `json:"diagnosticsWaitMs" doc:"most milliseconds a write waits for a language server's diagnostics to settle"`
	} `json:"lsp"`
}

// LSPServer is one language server of lsp.servers.
type LSPServer struct {
	Name        string   `json:"name"`
	Command     string   `json:"command"`
	Args        []string `json:"args,omitempty"`
	Languages   []string `json:"languages"`          // file extensions without the dot: go, py, ts
	RootMarkers []string `json:"rootMarkers"`        // files whose directory is the server's root: go.mod
	Checker     []string `json:"checker,omitempty"`  // the project checker lsp diagnostics '*' runs in the root: ["go", "vet", "./..."]
	SettleMs    int      `json:"settleMs,omitempty"` // how long its diagnostics must stay unchanged to count as settled (default 300)
	// InitializationOptions are sent as the handshake's
	// initializationOptions: the server's own settings (gopls:
	// {"pullDiagnostics": true}).
	InitializationOptions map[string]any `json:"initializationOptions,omitempty"`
}

// Defaults returns the built-in settings, which the user and workspace
// config files override.
func Defaults() Settings {
	var s Settings
	s.PermissionMode = 1
	s.ProtectedPatterns = []string{}
	s.AllowPaths = []string{}
	s.DenyPaths = []string{".env*"}
	s.MaxToolResultChars = 20000
	s.Read.DefaultLines = 2000
	s.List.Ignore = []string{"node_modules", ".git"}
	s.List.MaxDepth = 5
	s.List.MaxEntries = 500
	s.Commands.Enabled = true
	s.Commands.MaxSeconds = 600
	s.Commands.Allow = []string{}
	s.Commands.Deny = []string{}
	s.Commands.DenyPatterns = rule.Patterns{}
	s.Commands.Interpreter = "none"
	s.Commands.InheritEnv = []string{"PATH", "HOME", "LANG"}
	s.Commands.Env = map[string]string{}
	s.Commands.MaxOutputBytes = 1 << 20
	s.Commands.MaxJobs = 4
	s.Commands.Sandbox = "auto"
	s.Commands.Snapshot = "auto"
	s.Commands.SnapshotMaxFiles = 100000
	s.Commands.SnapshotMaxBytes = 1 << 30
	s.Commands.SnapshotMaxFileBytes = 16 << 20
	s.Browser.IdleSeconds = 1800
	s.Browser.MaxSessions = 4
	s.VCS.Enabled = true
	s.GitHub.APIURL = "https://api.github.com"
	s.GitHub.TokenEnv = "GH_TOKEN"
	s.Tasks.Enabled = true
	s.Research.Provider = "auto"
	s.Research.DuckDuckGoURL = "https://html.duckduckgo.com/html/"
	s.Research.WikipediaURL = "https://en.wikipedia.org/w/api.php"
	s.Agents.APIKeyEnv = "OPENAI_API_KEY"
	s.Search.Embeddings.APIKeyEnv = "OPENAI_API_KEY"
	s.Edit.MaxTransactionBytes = 256 << 20
	s.Broker.IdleSeconds = 600
	s.Broker.Mode = "daemon"
	s.Host.TokenEnv = "AW_HOST_TOKEN"
	s.Debug.TTLSeconds = 1800
	s.Eval.TimeoutSeconds = 300
	s.LSP.Servers = []LSPServer{}
	s.LSP.DiagnosticsOnWrite = true
	s.LSP.DiagnosticsWaitMs = 5000
	s.Store.RetentionDays = 14
	s.Store.MaxBytes = 2 << 30
	return s
}

// Key describes one setting: its dotted name, its JSON kind and its doc.
type Key struct {
	Name string
	Kind reflect.Kind // Int, Bool, String, Slice (of strings), Map (string to string)
	Doc  string
	path []int
	typ  reflect.Type
}

// Keys lists every setting in declaration order.
func Keys() []Key { return slices.Clone(settingKeys()) }

// settingKeys walks the Settings type once: every call loads settings and
// checks each key of the files against this list, so it is on the start-up path.
var settingKeys = sync.OnceValue(func() []Key {
	var keys []Key
	var walk func(t reflect.Type, prefix string, path []int)
	walk = func(t reflect.Type, prefix string, path []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := prefix + strings.Split(f.Tag.Get("json"), ",")[0]
			p := append(append([]int{}, path...), i)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, name+".", p)
				continue
			}
			keys = append(keys, Key{Name: name, Kind: f.Type.Kind(), Doc: f.Tag.Get("doc"), path: p, typ: f.Type})
		}
	}
	walk(reflect.TypeOf(Settings{}), "", nil)
	return keys
})

// LookupKey finds a setting by its dotted name.
func LookupKey(name string) (Key, error) {
	keys := settingKeys()
	for _, k := range keys {
		if k.Name == name {
			return k, nil
		}
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return Key{}, envelope.Errorf(envelope.InvalidInput,
		"unknown setting %q: the settings are %s (see `aw config list`)", name, strings.Join(names, ", ")).With("key", name)
}

// Get returns the value of key in s.
func (s *Settings) Get(k Key) any {
	return reflect.ValueOf(s).Elem().FieldByIndex(k.path).Interface()
}

// Flatten returns every setting as dotted name → value, sorted by name.
func (s *Settings) Flatten() []KeyValue {
	var out []KeyValue
	for _, k := range settingKeys() {
		out = append(out, KeyValue{Key: k.Name, Value: s.Get(k), Doc: k.Doc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// KeyValue is one row of `aw config list`.
type KeyValue struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
	Doc   string `json:"doc,omitempty"`
}

// ParseValue reads a command-line value for key: JSON when it parses as the
// key's type, else the bare string for string keys.
func ParseValue(k Key, raw string) (any, error) {
	var v any
	switch k.Kind {
	case reflect.Int:
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return nil, envelope.Errorf(envelope.InvalidInput, "%s takes a whole number, not %q", k.Name, raw).With("key", k.Name)
		}
		v = n
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return nil, envelope.Errorf(envelope.InvalidInput, "%s takes true or false, not %q", k.Name, raw).With("key", k.Name)
		}
		v = b
	case reflect.String:
		var s string
		if json.Unmarshal([]byte(raw), &s) != nil {
			s = raw
		}
		v = s
	case reflect.Slice:
		if k.typ != nil && k.typ != reflect.TypeOf([]string(nil)) {
			// A list of richer values (commands.denyPatterns): its own JSON form.
			ptr := reflect.New(k.typ)
			if err := json.Unmarshal([]byte(raw), ptr.Interface()); err != nil {
				return nil, envelope.Errorf(envelope.InvalidInput, `%s takes a JSON array, e.g. '["git push --force"]': %v`, k.Name, err).With("key", k.Name)
			}
			if ptr.Elem().IsNil() {
				ptr.Elem().Set(reflect.MakeSlice(k.typ, 0, 0))
			}
			v = ptr.Elem().Interface()
			break
		}
		var l []string
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			return nil, envelope.Errorf(envelope.InvalidInput, `%s takes a JSON array of strings, e.g. '["a","b"]', not %q`, k.Name, raw).With("key", k.Name)
		}
		if l == nil {
			l = []string{}
		}
		v = l
	case reflect.Map:
		var m map[string]string
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			return nil, envelope.Errorf(envelope.InvalidInput, `%s takes a JSON object of strings, e.g. '{"NAME":"value"}', not %q`, k.Name, raw).With("key", k.Name)
		}
		if m == nil {
			m = map[string]string{}
		}
		v = m
	}
	return v, nil
}

// Validate checks ranges and enumerations, naming the bad key and the values
// it allows.
func (s *Settings) Validate() error {
	bad := func(key, allowed string, got any) error {
		return envelope.Errorf(envelope.InvalidInput, "setting %s is %v: it must be %s", key, got, allowed).With("key", key)
	}
	switch {
	case s.PermissionMode < 0 || s.PermissionMode > 2:
		return bad("permissionMode", "0 (Manual), 1 (Plan) or 2 (Auto)", s.PermissionMode)
	case s.MaxToolResultChars < 1000:
		return bad("maxToolResultChars", "at least 1000", s.MaxToolResultChars)
	case s.Read.DefaultLines < 1:
		return bad("read.defaultLines", "at least 1", s.Read.DefaultLines)
	case s.Read.MaxBytes < 0:
		return bad("read.maxBytes", "0 (no ceiling) or more", s.Read.MaxBytes)
	case s.List.MaxDepth < 1:
		return bad("list.maxDepth", "at least 1", s.List.MaxDepth)
	case s.List.MaxEntries < 1:
		return bad("list.maxEntries", "at least 1", s.List.MaxEntries)
	case s.Commands.MaxSeconds < 1:
		return bad("commands.maxSeconds", "at least 1", s.Commands.MaxSeconds)
	case s.Commands.Interpreter != "none" && s.Commands.Interpreter != "sh":
		return bad("commands.interpreter", `"none" or "sh"`, s.Commands.Interpreter)
	case s.Commands.MaxOutputBytes < 1024:
		return bad("commands.maxOutputBytes", "at least 1024", s.Commands.MaxOutputBytes)
	case s.Commands.MaxJobs < 1:
		return bad("commands.maxJobs", "at least 1", s.Commands.MaxJobs)
	case s.Commands.Sandbox != "auto" && s.Commands.Sandbox != "require" && s.Commands.Sandbox != "off":
		return bad("commands.sandbox", `"auto", "require" or "off"`, s.Commands.Sandbox)
	case s.Commands.Snapshot != "auto" && s.Commands.Snapshot != "off":
		return bad("commands.snapshot", `"auto" or "off"`, s.Commands.Snapshot)
	case s.Commands.SnapshotMaxFiles < 1:
		return bad("commands.snapshotMaxFiles", "at least 1", s.Commands.SnapshotMaxFiles)
	case s.Commands.SnapshotMaxBytes < 0:
		return bad("commands.snapshotMaxBytes", "0 (keep no content) or more", s.Commands.SnapshotMaxBytes)
	case s.Commands.SnapshotMaxFileBytes < 0:
		return bad("commands.snapshotMaxFileBytes", "0 (keep no content) or more", s.Commands.SnapshotMaxFileBytes)
	case s.Browser.IdleSeconds < 1:
		return bad("browser.idleSeconds", "at least 1", s.Browser.IdleSeconds)
	case s.Browser.MaxSessions < 1:
		return bad("browser.maxSessions", "at least 1", s.Browser.MaxSessions)
	case s.Broker.IdleSeconds < 1:
		return bad("broker.idleSeconds", "at least 1", s.Broker.IdleSeconds)
	case s.Broker.Mode != "daemon" && s.Broker.Mode != "per-call":
		return bad("broker.mode", `"daemon" or "per-call"`, s.Broker.Mode)
	case s.Debug.TTLSeconds < 1 || s.Debug.TTLSeconds > 1800:
		return bad("debug.ttlSeconds", "1 to 1800", s.Debug.TTLSeconds)
	case s.Eval.TimeoutSeconds < 1 || s.Eval.TimeoutSeconds > 3600:
		return bad("eval.timeoutSeconds", "1 to 3600", s.Eval.TimeoutSeconds)
	case s.LSP.DiagnosticsWaitMs < 0 || s.LSP.DiagnosticsWaitMs > 60000:
		return bad("lsp.diagnosticsWaitMs", "0 to 60000", s.LSP.DiagnosticsWaitMs)
	case s.Edit.MaxTransactionBytes < 1<<16:
		return bad("edit.maxTransactionBytes", "at least 65536", s.Edit.MaxTransactionBytes)
	case s.Store.RetentionDays < 1:
		return bad("store.retentionDays", "at least 1", s.Store.RetentionDays)
	case s.Store.MaxBytes < 1<<20:
		return bad("store.maxBytes", "at least 1048576", s.Store.MaxBytes)
	}
	switch s.Research.Provider {
	case "auto", "duckduckgo", "wikipedia", "searxng":
	default:
		return bad("research.provider", "auto, duckduckgo, wikipedia or searxng", s.Research.Provider)
	}
	if _, err := TestArgv(s.Commands.TestCommand); err != nil {
		return bad("commands.testCommand", "one command line such as \"go test ./...\"", fmt.Sprintf("%q (%v)", s.Commands.TestCommand, err))
	}
	if err := s.Commands.DenyPatterns.Validate(); err != nil {
		return envelope.Errorf(envelope.InvalidInput, "setting commands.denyPatterns: %v", err).With("key", "commands.denyPatterns")
	}
	for _, list := range []struct {
		key  string
		pats []string
	}{{"protectedPatterns", s.ProtectedPatterns}, {"denyPaths", s.DenyPaths}, {"list.ignore", s.List.Ignore}} {
		for _, p := range list.pats {
			if err := checkGlob(p); err != nil {
				return bad(list.key, "a list of valid globs ("+err.Error()+")", fmt.Sprintf("%q", p))
			}
		}
	}
	return nil
}

// loadSettingsFile merges one config file (JSON with // comments allowed)
// into s. A missing file is not an error; a file that does not parse is
// reported with its path and never replaced by defaults.
func loadSettingsFile(s *Settings, path string) (bool, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, envelope.Errorf(envelope.Internal, "cannot read settings file %s: %v; fix its permissions", path, err).With("path", path)
	}
	if err := DecodeSettings(s, raw, path); err != nil {
		return false, err
	}
	return true, nil
}

// DecodeSettings merges one settings document (JSON with // comments) into
// s, refusing unknown keys and wrong types with the file's path.
func DecodeSettings(s *Settings, raw []byte, path string) error {
	std, err := hujson.Standardize(append([]byte(nil), raw...))
	if err != nil {
		return envelope.Errorf(envelope.InvalidInput, "settings file %s does not parse: %v; fix the file (it was left as it is)", path, err).With("path", path)
	}
	// Every aw call decodes the settings: a valid file is decoded once,
	// strictly; only a file that fails is walked key by key to name the
	// bad key in the error.
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.DisallowUnknownFields()
	decodeErr := dec.Decode(s)
	if decodeErr == nil {
		return nil
	}
	var tree map[string]any
	if err := json.Unmarshal(std, &tree); err != nil {
		return envelope.Errorf(envelope.InvalidInput, "settings file %s must hold one JSON object: %v", path, err).With("path", path)
	}
	if err := checkKeys(tree, "", path); err != nil {
		return err
	}
	return envelope.Errorf(envelope.InvalidInput, "settings file %s: %v; fix the value's type (`aw config list` shows each key's current value)", path, decodeErr).With("path", path)
}

// checkKeys names the first key in a settings tree that is not a setting.
func checkKeys(tree map[string]any, prefix, path string) error {
	names := make([]string, 0, len(tree))
	for k := range tree {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		full := prefix + k
		if isGroup(full) {
			sub, ok := tree[k].(map[string]any)
			if !ok {
				return envelope.Errorf(envelope.InvalidInput, "settings file %s: %q must be an object of settings, such as {\"enabled\": true}", path, full).With("key", full).With("path", path)
			}
			if err := checkKeys(sub, full+".", path); err != nil {
				return err
			}
			continue
		}
		if _, err := LookupKey(full); err != nil {
			return envelope.Errorf(envelope.InvalidInput, "settings file %s has unknown key %q; remove it or correct its name (`aw config list` names every key)", path, full).With("key", full).With("path", path)
		}
	}
	return nil
}

func isGroup(name string) bool {
	for _, k := range settingKeys() {
		if strings.HasPrefix(k.Name, name+".") {
			return true
		}
	}
	return false
}

// FileKeys lists the settings a file sets (dotted names); nil when it
// cannot be read or parsed (loading it reported why).
func FileKeys(path string) map[string]bool {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	std, err := hujson.Standardize(raw)
	if err != nil {
		return nil
	}
	var tree map[string]any
	if json.Unmarshal(std, &tree) != nil {
		return nil
	}
	keys := map[string]bool{}
	var walk func(t map[string]any, prefix string)
	walk = func(t map[string]any, prefix string) {
		for k, v := range t {
			if sub, ok := v.(map[string]any); ok && isGroup(prefix+k) {
				walk(sub, prefix+k+".")
			} else {
				keys[prefix+k] = true
			}
		}
	}
	walk(tree, "")
	return keys
}
