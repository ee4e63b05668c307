package dispatch

import (
	"sync"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// The tools, by the names MCP clients see (workspace_*). A tool whose actions
// have not landed yet has no rows, so it is neither listed nor callable.
var (
	Inspect = &Tool{Name: "workspace_inspect", Noun: "inspect", Short: "Read the workspace: files, searches, state for recovery"}
	Edit    = &Tool{Name: "workspace_edit", Noun: "edit", Short: "All-or-nothing file transactions"}
	Plan    = &Tool{Name: "workspace_plan", Noun: "plan", Short: "Propose and track the plan a human approves",
		// Plans exist in Manual and Plan mode; Auto runs without one.
		Enabled: func(s *workspace.Settings) (bool, string) { return s.PermissionMode != 2, "permissionMode 1" }}
	Notes    = &Tool{Name: "workspace_notes", Noun: "notes", Short: "Notes and durable workspace memory"}
	Tasks    = &Tool{Name: "workspace_tasks", Noun: "tasks", Short: "To-Do boards", Enabled: setting("tasks.enabled", func(s *workspace.Settings) bool { return s.Tasks.Enabled })}
	Command  = &Tool{Name: "workspace_command", Noun: "command", Short: "Run commands under the command policy", Enabled: setting("commands.enabled", func(s *workspace.Settings) bool { return s.Commands.Enabled })}
	VCS      = &Tool{Name: "workspace_vcs", Noun: "vcs", Short: "Version control", Enabled: setting("vcs.enabled", func(s *workspace.Settings) bool { return s.VCS.Enabled })}
	Research = &Tool{Name: "workspace_research", Noun: "research", Short: "Web research projects", Enabled: setting("research.enabled", func(s *workspace.Settings) bool { return s.Research.Enabled })}
	Browser  = &Tool{Name: "workspace_browser", Noun: "browser", Short: "Browser sessions", Enabled: setting("browser.enabled", func(s *workspace.Settings) bool { return s.Browser.Enabled })}
	Agent    = &Tool{Name: "workspace_agent", Noun: "agent", Short: "Durable sub-agents", Enabled: setting("agents.enabled", func(s *workspace.Settings) bool { return s.Agents.Enabled })}

	// aw's own nouns: not workspace_* tools, so not offered to agents over MCP.
	Config = &Tool{Noun: "config", Short: "Settings (set is a human verb)"}
	Store  = &Tool{Noun: "store", Short: "Housekeeping of .agentic/ (gc is a human verb)"}
)

func setting(key string, on func(*workspace.Settings) bool) func(*workspace.Settings) (bool, string) {
	return func(s *workspace.Settings) (bool, string) { return on(s), key + " true" }
}

var (
	tableOnce sync.Once
	table     []*Action
)

// Table returns every action, tool by tool.
func Table() []*Action {
	tableOnce.Do(func() {
		for _, rows := range [][]*Action{inspectActions(), editActions(), notesActions(), configActions(), approvalActions(), planActions(), tasksActions(), researchActions(), vcsActions(), githubActions(), commandActions(), policyActions(), browserActions(), storeActions()} {
			table = append(table, rows...)
		}
	})
	return table
}

// Registered lists the tools the settings and tier make available, with the
// actions of each that the tier allows: a tool's Enabled setting decides
// (plan only outside Auto), and a tool with no action left is not listed.
func Registered(ws *workspace.Workspace) []workspace.ToolInfo {
	var out []workspace.ToolInfo
	index := map[*Tool]int{}
	for _, a := range Table() {
		if a.Tool.Name == "" {
			continue
		}
		if a.Tool.Enabled != nil {
			if ok, _ := a.Tool.Enabled(&ws.Settings); !ok {
				continue
			}
		}
		if !ws.Allows(a.Tier) {
			continue
		}
		i, ok := index[a.Tool]
		if !ok {
			i = len(out)
			index[a.Tool] = i
			out = append(out, workspace.ToolInfo{Name: a.Tool.Name})
		}
		out[i].Actions = append(out[i].Actions, a.Name)
	}
	return out
}
