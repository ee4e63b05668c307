// Package workspace owns what a call runs against: the root, the settings
// (from files only), the tier cap and the jail. It never prints and never
// reads flags; the front end passes what the caller asked for in Options.
package workspace

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
)

// Tier caps what a call may do: read changes nothing, write may change
// files, exec may also start processes and reach the network.
type Tier int

// The tiers, in increasing power.
const (
	TierRead  Tier = iota // no change to workspace files, no process, no network
	TierWrite             // may change files
	TierExec              // may start processes or reach the network
)

func (t Tier) String() string { return [...]string{"read", "write", "exec"}[t] }

// ParseTier reads read|write|exec.
func ParseTier(s string) (Tier, error) {
	switch s {
	case "read":
		return TierRead, nil
	case "write":
		return TierWrite, nil
	case "exec", "":
		return TierExec, nil
	}
	return 0, envelope.Errorf(envelope.InvalidInput, "tier %q is not one of read, write, exec", s).With("tier", s)
}

// Options is what the caller asked for. Everything here can only narrow.
type Options struct {
	Root       string // --root, else AW_ROOT (the front end resolves the precedence)
	WorkingDir string // where discovery starts when Root is empty
	Scope      string // --scope, relative to the root
	Tier       Tier
	ConfigHome string // $XDG_CONFIG_HOME or ~/.config; "" skips the user config
	Caller     Caller
	// Cache, when set, keeps decoded settings between calls of a
	// long-lived front end; nil reads the settings files every time.
	Cache *Cache
}

// Caller is who is calling, as far as aw can tell. Human verbs (approval
// accept/deny, config set, gc, ...) run only for a terminal or a holder of
// the approver token.
type Caller struct {
	Terminal      bool   // stdin is a terminal and /dev/tty opens
	ApproverToken string // AW_APPROVER_TOKEN, checked against the token file
	// Confirm asks the human at the terminal a yes/no question (the front
	// end sets it only when Terminal is true). The gate calls it in the
	// terminal path of a human verb, never for a token holder.
	Confirm func(prompt string) bool `json:"-"`
	// ReadLine shows text at the human's terminal and reads one line
	// (set with Confirm): aw ask on a terminal takes its answer there.
	ReadLine func(text string) (string, error) `json:"-"`
}

// Workspace is the root a call runs against, with its settings and jail.
type Workspace struct {
	Root     string // realpath
	Settings Settings
	Tier     Tier
	Jail     *Jail
	Store    *store.Store
	Caller   Caller
	// Tools lists the tools and actions registered for this call (settings
	// and tier). The dispatch table sets it, so engine packages need not
	// import the table that imports them.
	Tools func() []ToolInfo
	// ConfigHome is where the user config and the approver token live.
	ConfigHome string
	// Warnings are problems that did not stop the call (an ignored user
	// config, say); front ends show them on stderr.
	Warnings []string
	// SettingsFiles are the files that contributed, lowest precedence first.
	SettingsFiles []string
	// Grants are the gate kinds ("command", "web") a human's approval of a
	// sub-agent run covers for that run's own calls in Manual mode. Only
	// the run sets them, on its own copy of the workspace; nothing a
	// caller passes reaches them.
	Grants []string
	// anchor is the root discovered from the working directory; files
	// inside it are never trusted as the user's, whatever the root.
	anchor string
}

// StateDir is the name of the state directory under the root.
const StateDir = ".agentic"

// Discover finds the root: the nearest ancestor of dir holding .agentic/,
// else the nearest holding .git, else dir itself.
func Discover(dir string) string {
	root, _ := discover(dir)
	return root
}

// discover is Discover, also telling whether a marker was found (dir
// itself is returned when none was).
func discover(dir string) (string, bool) {
	for _, marker := range []string{StateDir, ".git"} {
		for d := dir; ; {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return d, true
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return dir, false
}

// Open resolves the root, loads settings and builds the jail.
//
// The working directory is the trust anchor: it is what the harness that
// launched the agent chose, while --root and AW_ROOT are arguments the agent
// may write itself. So when WorkingDir is set they only narrow: a root they
// name must be the root discovered from the working directory or a
// directory inside it, and inside a discovered workspace it is a scope, not
// a new root (see Locate). Without this an agent could point aw at / or at
// the user's config directory and read anything, or name a sub-directory
// whose own .agentic/config.json (or none: the defaults) replaced the
// workspace's policy. A program embedding the engine that chooses the root
// itself passes Root without WorkingDir.
func Open(opts Options) (*Workspace, error) {
	loc, err := Locate(opts)
	if err != nil {
		return nil, err
	}
	real := loc.Root
	ws := &Workspace{Root: real, Tier: opts.Tier, Store: store.Open(real), Caller: opts.Caller, ConfigHome: opts.ConfigHome, anchor: loc.Anchor}
	user := ""
	if opts.ConfigHome != "" {
		user = filepath.Join(opts.ConfigHome, "aw", "config.json")
	}
	trustUser := user != ""
	if why := ws.untrusted(user, nil); trustUser && why != "" {
		ws.Warnings = append(ws.Warnings, "ignoring user config "+user+": "+why)
		trustUser = false
	}
	if err := ws.loadSettings(opts.Cache, user, trustUser); err != nil {
		return nil, err
	}
	if trustUser {
		// The settings just read may name allowPaths roots; a user config
		// inside one of them is no more trusted than one in the workspace.
		if why := ws.untrusted(user, allowRoots(real, &ws.Settings)); why != "" {
			ws.Warnings = append(ws.Warnings, "ignoring user config "+user+": "+why)
			if err := ws.loadSettings(opts.Cache, user, false); err != nil {
				return nil, err
			}
		}
	}
	scope := loc.Scope
	if opts.Scope != "" {
		j := newJail(real, real, &ws.Settings)
		p, err := j.Resolve(opts.Scope, Read)
		if err != nil || p.Outside {
			return nil, envelope.Errorf(envelope.PathEscape, "scope %q is not a directory inside the workspace root", opts.Scope).With("path", opts.Scope)
		}
		if fi, err := os.Stat(p.Abs); err != nil || !fi.IsDir() {
			return nil, envelope.Errorf(envelope.InvalidInput, "scope %q is not an existing directory inside the workspace", opts.Scope).With("path", opts.Scope)
		}
		if !within(scope, p.Abs) {
			return nil, envelope.Errorf(envelope.PathEscape, "scope %q is outside the directory --root (or AW_ROOT) narrowed this call to (%s); --scope is relative to the workspace root %s", opts.Scope, displayRel(relSlash(real, scope)), real).With("path", opts.Scope)
		}
		scope = p.Abs
	}
	// User-level allowPaths inside a hostile workspace are still jailed by
	// Resolve: they only ever add read-only roots.
	ws.Jail = newJail(real, scope, &ws.Settings)
	return ws, nil
}

// loadSettings sets ws.Settings from the defaults, the user config (when
// trusted) and the workspace's .agentic/config.json, in that order.
func (ws *Workspace) loadSettings(c *Cache, user string, trustUser bool) error {
	files := []string{filepath.Join(ws.Root, StateDir, "config.json")}
	if trustUser {
		files = append([]string{user}, files...)
	}
	s, used, err := c.load(files)
	if err != nil {
		return err
	}
	ws.Settings, ws.SettingsFiles = s, used
	return nil
}

// Location is where a call runs: the workspace root (whose settings, store
// and protections apply), the directory the jail is narrowed to, and the
// anchor discovered from the working directory.
type Location struct {
	Root   string // realpath of the workspace root
	Scope  string // realpath of the directory --root narrowed to (Root when not narrowed)
	Anchor string // realpath of the root discovered from the working directory
}

// Locate resolves where a call runs: root, scope and jail. A --root (or
// AW_ROOT) must name the discovered root or a directory inside it. When the
// working directory is inside a workspace (the discovered root holds
// .agentic/ or .git), that workspace stays the root and the named directory
// only narrows the jail, exactly like --scope: its settings, store, protected
// and denied paths, permission mode and trust checks all still apply, and
// `--root .agentic` neither unprotects nor nests anything. When the working
// directory is in no workspace at all, there is no policy to keep: the named
// directory is located as if aw had been started there.
func Locate(opts Options) (Location, error) {
	if opts.WorkingDir == "" {
		if opts.Root == "" {
			return Location{}, envelope.Errorf(envelope.InvalidInput, "no workspace root: pass a root or a working directory")
		}
		real, err := filepath.EvalSymlinks(opts.Root)
		if err != nil {
			return Location{}, envelope.Errorf(envelope.InvalidInput, "workspace root %s does not exist: pass an existing directory", opts.Root).With("path", opts.Root)
		}
		return Location{Root: real, Scope: real, Anchor: real}, isDir(real)
	}
	discovered, marked := discover(opts.WorkingDir)
	anchor, err := filepath.EvalSymlinks(discovered)
	if err != nil {
		return Location{}, envelope.Errorf(envelope.InvalidInput, "the working directory %s cannot be resolved: %v", opts.WorkingDir, err)
	}
	loc := Location{Root: anchor, Scope: anchor, Anchor: anchor}
	root := opts.Root
	if root == "" {
		return loc, isDir(anchor)
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(opts.WorkingDir, root)
	}
	// The root named is often the directory discovered: resolved already.
	real := anchor
	if root != discovered {
		if real, err = filepath.EvalSymlinks(root); err != nil {
			return Location{}, envelope.Errorf(envelope.InvalidInput, "workspace root %s does not exist: pass --root with an existing directory", root).With("path", root)
		}
	}
	if !within(anchor, real) {
		return Location{}, envelope.Errorf(envelope.PathEscape,
			"--root (or AW_ROOT) %s is outside the workspace this call starts in (%s): a root given on the command line may only narrow it; run aw from inside the other workspace instead", root, anchor).With("path", root)
	}
	if err := isDir(real); err != nil {
		return Location{}, err
	}
	loc.Scope = real
	if !marked {
		// No workspace around the working directory: find the one around
		// the named directory, never above the anchor.
		if found, err := filepath.EvalSymlinks(Discover(real)); err == nil && within(anchor, found) {
			loc.Root = found
		} else {
			loc.Root = real
		}
	}
	return loc, nil
}

func isDir(real string) error {
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return envelope.Errorf(envelope.InvalidInput, "workspace root %s is not a directory: pass --root with a directory", real).With("path", real)
	}
	return nil
}

// StatePath joins elements under .agentic/.
func (ws *Workspace) StatePath(elem ...string) string {
	return filepath.Join(append([]string{ws.Root, StateDir}, elem...)...)
}

// Rel returns the root-relative slash form of an absolute path under the root.
func (ws *Workspace) Rel(abs string) string { return relSlash(ws.Root, abs) }

// Allows reports whether the call's tier permits an action of tier need.
func (ws *Workspace) Allows(need Tier) bool { return need <= ws.Tier }

// untrusted says why a user-level file (config or approver token) must be
// ignored: it lies inside the workspace, inside the workspace discovered
// from the working directory (whatever --root narrowed the call to), or
// inside an allowPaths root, is not owned by the current user, is readable
// by others, or has other hard links (another name, perhaps one an agent
// can write, for the same content). An agent that can write files through
// aw must not be able to mint its own approver. An empty result means the
// file is trusted (or does not exist).
func (ws *Workspace) untrusted(path string, allowRoots []string) string {
	if path == "" {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "it cannot be resolved"
	}
	for _, r := range append([]string{ws.Root, ws.anchor}, allowRoots...) {
		if r != "" && within(r, real) {
			return "it lies inside the workspace (" + r + "), where an agent could write it"
		}
	}
	return ownershipProblem(fi)
}

// TrustedUserFile is untrusted for other packages (the gate reads the
// approver token through it).
func (ws *Workspace) TrustedUserFile(path string) (bool, string) {
	why := ws.untrusted(path, ws.Jail.allowRoots)
	return why == "", why
}

// ModeName is the permission mode's name.
func ModeName(mode int) string {
	return [...]string{"manual", "plan", "auto"}[mode]
}

// Title capitalises a mode name for prose.
func Title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// ToolInfo is one registered tool and the actions the tier allows.
type ToolInfo struct {
	Name    string   `json:"name"`
	Actions []string `json:"actions"`
}
