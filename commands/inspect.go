package commands

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/inspect"
	"github.com/agentic-workspace/aw/engine/semantic"
)

// inspectCmd wires workspace_inspect's verbs. Positional arguments fill
// request fields only when given, so --input can supply them instead;
// required fields are checked by the engine (INVALID_INPUT).
func (a *app) inspectCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: dispatch.Inspect.Short,
		Long: `Read the workspace: files, searches, and the state an agent needs to
recover after its context was compacted. Never gated, never writes a
workspace file.`,
	}

	capabilities := a.verb(dispatch.Inspect, "capabilities", "capabilities", nil, nil)
	capabilities.Args = cobra.NoArgs

	overview := a.verb(dispatch.Inspect, "overview", "overview [--depth N]", func(f *pflag.FlagSet, req any) {
		r := req.(*inspect.OverviewRequest)
		f.IntVar(&r.Depth, "depth", 0, "tree depth (default 2, at most list.maxDepth)")
	}, nil)
	overview.Args = cobra.NoArgs

	list := a.verb(dispatch.Inspect, "list", "list [PATH] [--depth N] [--ignore GLOB]...", func(f *pflag.FlagSet, req any) {
		r := req.(*inspect.ListRequest)
		f.IntVar(&r.Depth, "depth", 0, "levels to list, 1 = direct children (default and cap: list.maxDepth)")
		f.StringArrayVar(&r.Ignore, "ignore", nil, "hide entries matching this glob (repeatable)")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*inspect.ListRequest).Path = args[0]
		}
	})
	list.Args = cobra.MaximumNArgs(1)

	read := a.verb(dispatch.Inspect, "read", "read PATH [--start N] [--start-column N] [--limit N] [--max-bytes N]", func(f *pflag.FlagSet, req any) {
		r := req.(*inspect.ReadRequest)
		f.IntVar(&r.StartLine, "start", 0, "first line to show, 1-based (default 1)")
		f.IntVar(&r.Limit, "limit", 0, "lines in the window (default read.defaultLines)")
		f.IntVar(&r.StartColumn, "start-column", 0, "1-based byte column of the start line to show from: a line longer than the budget is read in pieces, each window's nextColumn the next --start-column")
		f.IntVar(&r.MaxBytes, "max-bytes", 0, "byte ceiling on the returned content, gutter included (can only lower read.maxBytes)")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*inspect.ReadRequest).Path = args[0]
		}
	})
	read.Args = cobra.MaximumNArgs(1)

	search := a.verb(dispatch.Inspect, "search", "search PATTERN [PATH] [--glob G]... [--fixed] [--ignore-case] [--context N] [--max-results N]", func(f *pflag.FlagSet, req any) {
		r := req.(*inspect.SearchRequest)
		f.StringArrayVar(&r.Glob, "glob", nil, "only files matching this glob; !GLOB excludes (repeatable)")
		f.BoolVar(&r.Fixed, "fixed", false, "PATTERN is literal text, not a regular expression")
		f.BoolVarP(&r.IgnoreCase, "ignore-case", "i", false, "match without regard to case")
		f.IntVarP(&r.Context, "context", "C", 0, "lines of context before and after each match (at most 20)")
		f.IntVar(&r.MaxResults, "max-results", 0, "matches to return (default 1000, at most 100000)")
	}, func(req any, args []string) {
		r := req.(*inspect.SearchRequest)
		if len(args) > 0 {
			r.Pattern = args[0]
		}
		if len(args) > 1 {
			r.Path = args[1]
		}
	})
	search.Args = cobra.MaximumNArgs(2)

	find := a.verb(dispatch.Inspect, "find", "find GLOB [PATH] [--max-results N]", func(f *pflag.FlagSet, req any) {
		r := req.(*inspect.FindRequest)
		f.IntVar(&r.MaxResults, "max-results", 0, "paths to return (default 1000, at most 100000)")
	}, func(req any, args []string) {
		r := req.(*inspect.FindRequest)
		if len(args) > 0 {
			r.Pattern = args[0]
		}
		if len(args) > 1 {
			r.Path = args[1]
		}
	})
	find.Args = cobra.MaximumNArgs(2)

	stat := a.verb(dispatch.Inspect, "stat", "stat PATH", nil, func(req any, args []string) {
		if len(args) > 0 {
			req.(*inspect.StatRequest).Path = args[0]
		}
	})
	stat.Args = cobra.MaximumNArgs(1)

	changes := a.verb(dispatch.Inspect, "changes", "changes", nil, nil)
	changes.Args = cobra.NoArgs

	semanticSearch := a.verb(dispatch.Inspect, "semantic_search", "semantic-search QUERY [PATH] [--limit N] [--lang L]", func(f *pflag.FlagSet, req any) {
		r := req.(*semantic.SearchRequest)
		f.IntVar(&r.Limit, "limit", 0, "chunks to return (default 10, at most 100)")
		f.StringVar(&r.Lang, "lang", "", "only files of this language (go, python, typescript, ... or an extension)")
	}, func(req any, args []string) {
		r := req.(*semantic.SearchRequest)
		if len(args) > 0 {
			r.Query = args[0]
		}
		if len(args) > 1 {
			r.Path = args[1]
		}
	})
	semanticSearch.Args = cobra.MaximumNArgs(2)

	index := &cobra.Command{
		Use:   "index",
		Short: "Show or rebuild the semantic-search index",
		Long: `The semantic-search index lives under .agentic/index/. Every
semantic-search brings it up to date first (only files whose content
changed are read again), so these verbs are rarely needed.`,
	}
	indexStatus := a.verb(dispatch.Inspect, "index_status", "status", nil, nil)
	indexStatus.Args = cobra.NoArgs
	indexRebuild := a.verb(dispatch.Inspect, "index_rebuild", "rebuild", nil, nil)
	indexRebuild.Args = cobra.NoArgs
	index.AddCommand(indexStatus, indexRebuild)

	cmd.AddCommand(capabilities, overview, list, read, search, find, stat, changes, semanticSearch, index)
	return cmd
}
