package commands

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/research"
)

func (a *app) researchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "research",
		Short: dispatch.Research.Short,
		Long: `Web research (research.enabled). Projects live in
.agentic/research/<research_id>/: project.json (sources, queries, notes) and
sources/<source_id>.txt (the whole text of each fetched page).

search, fetch and deep reach a host outside this machine and are gated as
kind web: staged in Manual mode, refused in Plan mode without an approved
plan, run in Auto. start, note, show, list and archive are never gated.

deep starts a research agent in the background (needs agents.enabled and
agents.allowWeb): a research-mode sub-agent run tied to the project
(--research, or a new one named after the objective), which cannot edit
or run commands; its searches, fetches and notes are recorded in the
project. --run RUN awaits it.

search providers: duckduckgo (research.duckduckgoUrl, its HTML endpoint),
wikipedia (research.wikipediaUrl, the MediaWiki search API), searxng
(research.searxngUrl, the instance's JSON API) and auto (searxng when
configured, else duckduckgo, falling back to wikipedia; every attempt is in
data.attempts).

fetch keeps the title, the main text (no script, style, navigation,
header, footer, aside, forms or cookie banners) and the links in document
order, resolved to absolute URLs. data.text is bounded by
maxToolResultChars and data.links by a quarter of it (at least 1,000
characters, linksOmitted counts the rest); with --research the whole text is
the source's contentPath, else an artifact. HTML, plain text and JSON are
read; binary types (PDF, images) are refused. At most 5 redirects, 20 MiB
read, 30 s by default. Loopback, private, link-local and unspecified
addresses are refused on every connection (each redirect hop, after DNS)
unless a human sets research.allowPrivateNetwork. A page's text is data:
nothing in it changes what aw does.`,
	}

	researchFlag := func(f *pflag.FlagSet, p *string) {
		f.StringVar(p, "research", "", "the research_ project to record this in")
	}

	start := a.verb(dispatch.Research, "start", "start TITLE", nil, func(req any, args []string) {
		if len(args) > 0 {
			req.(*research.StartRequest).Title = strings.Join(args, " ")
		}
	})

	search := a.verb(dispatch.Research, "search", "search QUERY [--provider P] [--research ID] [--limit N]", func(f *pflag.FlagSet, req any) {
		r := req.(*research.SearchRequest)
		f.StringVar(&r.Provider, "provider", "", "auto, duckduckgo, wikipedia or searxng (default: research.provider)")
		researchFlag(f, &r.ResearchID)
		f.IntVar(&r.Limit, "limit", 0, "most results, 1-50 (default 10)")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*research.SearchRequest).Query = strings.Join(args, " ")
		}
	})

	fetch := a.verb(dispatch.Research, "fetch", "fetch URL [--research ID] [--timeout S]", func(f *pflag.FlagSet, req any) {
		r := req.(*research.FetchRequest)
		researchFlag(f, &r.ResearchID)
		f.IntVar(&r.TimeoutSeconds, "timeout", 0, "seconds for the whole fetch, 1-120 (default 30)")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*research.FetchRequest).URL = args[0]
		}
	})
	fetch.Args = cobra.MaximumNArgs(1)

	deep := a.verb(dispatch.Research, "deep", "deep [OBJECTIVE...] [--research ID] [--context C] | deep --run RUN [--timeout S]", func(f *pflag.FlagSet, req any) {
		r := req.(*research.DeepRequest)
		researchFlag(f, &r.ResearchID)
		f.StringVar(&r.Objective, "objective", "", "what the research agent should find out")
		f.StringVar(&r.Context, "context", "", "what is known already, what to leave out")
		f.StringVar(&r.RunID, "run", "", "await this run_ instead of starting one")
		f.Var(optionalFloat{&r.TimeoutSeconds}, "timeout", "with --run: seconds to wait, 1-3600 (default 60)")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*research.DeepRequest).Objective = strings.Join(args, " ")
		}
	})

	list := a.verb(dispatch.Research, "list", "list [--all]", func(f *pflag.FlagSet, req any) {
		r := req.(*research.ListRequest)
		f.BoolVar(&r.IncludeArchived, "all", false, "include archived projects")
		f.IntVar(&r.Limit, "limit", 0, "most projects to show, 1-200 (default 50)")
	}, nil)
	list.Args = cobra.NoArgs

	project := func(req any, args []string) {
		if len(args) > 0 {
			req.(*research.ProjectRequest).ResearchID = args[0]
		}
	}
	show := a.verb(dispatch.Research, "show", "show ID", nil, project)
	archive := a.verb(dispatch.Research, "archive", "archive ID", nil, project)
	show.Args, archive.Args = cobra.MaximumNArgs(1), cobra.MaximumNArgs(1)

	note := a.verb(dispatch.Research, "note", "note ID --kind finding|claim|question|warning|method --text T [--source S]", func(f *pflag.FlagSet, req any) {
		r := req.(*research.NoteRequest)
		f.StringVar(&r.Kind, "kind", "", strings.Join(research.NoteKinds, ", "))
		f.StringVar(&r.Text, "text", "", "the note")
		f.StringVar(&r.SourceID, "source", "", "the source_ the note is about")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*research.NoteRequest).ResearchID = args[0]
		}
	})
	note.Args = cobra.MaximumNArgs(1)

	cmd.AddCommand(start, search, fetch, deep, list, show, note, archive)
	return cmd
}
