package dispatch

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentic-workspace/aw/engine/gate"
)

// The gate names every staged call's resume as a command line too.
func init() { gate.CommandLine = CommandLine }

// spellings say how the command line spells each gated action's arguments,
// so a staged call's resume is the short command a human would type:
// positional arguments in order (a list only last), flags ("json_name" or
// "json_name=flag" where the flag is named otherwise) and the fields that
// follow "--" (an executable, then its arguments). A call using anything
// else is spelled `aw call TOOL 'JSON'`. TestResumeCommandLines runs every
// spelling through the binary and checks it stages the same approval.
var spellings = map[string]spelling{
	"edit.commit":      {args: []string{"transaction_id"}},
	"edit.rollback":    {args: []string{"transaction_id"}, flags: []string{"force"}},
	"command.run":      {flags: []string{"cwd", "line", "timeout_seconds=timeout"}, rest: []string{"executable", "args"}},
	"command.start":    {flags: []string{"cwd", "line", "timeout_seconds=timeout"}, rest: []string{"executable", "args"}},
	"command.test":     {flags: []string{"pattern", "path", "timeout_seconds=timeout"}},
	"vcs.add":          {args: []string{"paths"}},
	"vcs.commit":       {flags: []string{"message"}},
	"vcs.checkout":     {args: []string{"rev"}},
	"vcs.branch":       {args: []string{"name"}, flags: []string{"create", "delete", "start"}},
	"vcs.push":         {flags: []string{"remote", "force"}},
	"vcs.init":         {flags: []string{"branch"}},
	"vcs.issue_create": {flags: []string{"repo", "title", "body", "labels=label", "assignees=assignee"}},
	"vcs.pr_create":    {flags: []string{"repo", "title", "head", "base", "body", "draft"}},
	"research.search":  {args: []string{"query"}, flags: []string{"provider", "research_id=research", "limit"}},
	"research.fetch":   {args: []string{"url"}, flags: []string{"research_id=research", "timeout_seconds=timeout"}},
	"browser.open":     {args: []string{"url"}},
}

type spelling struct{ args, flags, rest []string }

// CommandLine spells a call as an aw command line: `aw NOUN VERB ARG...
// --flag...` when every argument is one of the row's positional arguments
// or boolean flags, else `aw call TOOL 'JSON'`, which runs any call exactly.
func CommandLine(r gate.Resume) string {
	action, _ := r.Arguments["action"].(string)
	row, err := Find(r.Tool, action)
	if err != nil {
		return ""
	}
	if line, ok := row.shortForm(r.Arguments); ok {
		return line
	}
	raw, _ := json.Marshal(r.Arguments)
	return "aw call " + r.Tool + " " + shellQuote(string(raw))
}

func (a *Action) shortForm(args map[string]any) (string, bool) {
	sp, ok := spellings[a.Operation()]
	if !ok {
		return "", false
	}
	words := []string{"aw", a.Tool.Noun, a.Verb()}
	used := map[string]bool{"action": true}
	missing := false
	for i, name := range sp.args {
		v, ok := args[name]
		if !ok {
			missing = true
			continue
		}
		list, ok := strs(v)
		if !ok || missing || isArray(v) && i < len(sp.args)-1 {
			return "", false // a later positional cannot follow a missing one; a list only comes last
		}
		for _, w := range list {
			words = append(words, shellQuote(w))
		}
		used[name] = true
	}
	var flags []string
	for _, f := range sp.flags {
		name, flag, _ := strings.Cut(f, "=")
		if flag == "" {
			flag = strings.ReplaceAll(name, "_", "-")
		}
		switch v := args[name].(type) {
		case nil:
		case bool:
			if v {
				flags = append(flags, "--"+flag)
			}
		case float64:
			flags = append(flags, "--"+flag+" "+strconv.FormatFloat(v, 'f', -1, 64))
		case int:
			flags = append(flags, "--"+flag+" "+strconv.Itoa(v))
		default:
			list, ok := strs(v)
			if !ok {
				return "", false
			}
			for _, w := range list {
				flags = append(flags, "--"+flag+" "+shellQuote(w))
			}
		}
		used[name] = true
	}
	sort.Strings(flags)
	words = append(words, flags...)
	if len(sp.rest) > 0 {
		if exe, ok := args[sp.rest[0]].(string); ok {
			words = append(words, "--", shellQuote(exe))
			used[sp.rest[0]] = true
			if v, ok := args[sp.rest[1]]; ok {
				list, ok := strs(v)
				if !ok {
					return "", false
				}
				for _, w := range list {
					words = append(words, shellQuote(w))
				}
				used[sp.rest[1]] = true
			}
		}
	}
	for name := range args {
		if !used[name] {
			return "", false
		}
	}
	return strings.Join(words, " "), true
}

// strs reads a JSON string or array of strings as words.
func strs(v any) ([]string, bool) {
	switch v := v.(type) {
	case string:
		return []string{v}, true
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	case []string:
		return v, true
	}
	return nil, false
}

func isArray(v any) bool {
	switch v.(type) {
	case []any, []string:
		return true
	}
	return false
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+-") == "" {
		return s
	}
	return fmt.Sprintf("'%s'", strings.ReplaceAll(s, "'", `'\''`))
}

// Positional is the request fields the action's command line takes as
// positional arguments, in order (for gated actions; nil for the rest).
func (a *Action) Positional() []string { return spellings[a.Operation()].args }
