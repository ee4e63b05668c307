package commands

import (
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/github"
)

func (a *app) vcsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vcs",
		Short: dispatch.VCS.Short,
		Long: `Version control (vcs.enabled). The GitHub actions use the REST API at
github.apiUrl (GitHub Enterprise: https://HOST/api/v3) with the token in the
environment variable github.tokenEnv names (default GH_TOKEN); the token
never appears in output. OWNER/NAME comes from --repo, else from the
"origin" remote in the workspace's .git/config. issue-create and pr-create
are gated (kind vcs): staged in Manual mode, refused in Plan mode without an
approved plan. Lists and pr-diff work without a token on public
repositories.`,
	}
	repo := func(f *pflag.FlagSet, p *string) {
		f.StringVar(p, "repo", "", "OWNER/NAME (default: the origin remote of the workspace's git repository)")
	}

	auth := a.verb(dispatch.VCS, "gh_auth", "gh-auth", nil, nil)
	auth.Args = cobra.NoArgs

	issueList := a.verb(dispatch.VCS, "issue_list", "issue-list [--state S] [--label L]... [--limit N]", func(f *pflag.FlagSet, req any) {
		r := req.(*github.IssueListRequest)
		repo(f, &r.Repo)
		f.StringVar(&r.State, "state", "", "open (default), closed or all")
		f.StringArrayVar((*[]string)(&r.Labels), "label", nil, "only issues with this label (repeatable: all of them)")
		f.IntVar(&r.Limit, "limit", 0, "most issues, 1-1000 (default 30)")
	}, nil)
	issueList.Args = cobra.NoArgs

	issueCreate := a.verb(dispatch.VCS, "issue_create", "issue-create --title T [--body B] [--label L]...", func(f *pflag.FlagSet, req any) {
		r := req.(*github.IssueCreateRequest)
		repo(f, &r.Repo)
		f.StringVar(&r.Title, "title", "", "the issue's title")
		f.StringVar(&r.Body, "body", "", "the issue's body (Markdown)")
		f.StringArrayVar((*[]string)(&r.Labels), "label", nil, "a label to set (repeatable)")
		f.StringArrayVar((*[]string)(&r.Assignees), "assignee", nil, "a login to assign (repeatable)")
	}, nil)
	issueCreate.Args = cobra.NoArgs

	prList := a.verb(dispatch.VCS, "pr_list", "pr-list [--state S] [--base B] [--head OWNER:BRANCH] [--limit N]", func(f *pflag.FlagSet, req any) {
		r := req.(*github.PRListRequest)
		repo(f, &r.Repo)
		f.StringVar(&r.State, "state", "", "open (default), closed or all")
		f.StringVar(&r.Base, "base", "", "only pull requests into this branch")
		f.StringVar(&r.Head, "head", "", "only pull requests from OWNER:BRANCH")
		f.IntVar(&r.Limit, "limit", 0, "most pull requests, 1-1000 (default 30)")
	}, nil)
	prList.Args = cobra.NoArgs

	prCreate := a.verb(dispatch.VCS, "pr_create", "pr-create --title T [--head BRANCH] [--base BRANCH] [--body B] [--draft]", func(f *pflag.FlagSet, req any) {
		r := req.(*github.PRCreateRequest)
		repo(f, &r.Repo)
		f.StringVar(&r.Title, "title", "", "the pull request's title")
		f.StringVar(&r.Head, "head", "", "the branch with the changes (default: the workspace's current branch)")
		f.StringVar(&r.Base, "base", "", "the branch to merge into (default: the repository's default branch)")
		f.StringVar(&r.Body, "body", "", "the description (Markdown)")
		f.BoolVar(&r.Draft, "draft", false, "open it as a draft")
	}, nil)
	prCreate.Args = cobra.NoArgs

	var number string
	prDiff := a.verb(dispatch.VCS, "pr_diff", "pr-diff NUMBER", func(f *pflag.FlagSet, req any) {
		repo(f, &req.(*github.PRDiffRequest).Repo)
	}, func(req any, args []string) {
		if len(args) > 0 {
			number = args[0]
		}
	})
	prDiff.Args = cobra.MaximumNArgs(1)
	a.beforeDispatch(prDiff, func(req any) error {
		if number == "" {
			return nil
		}
		n, err := strconv.Atoi(number)
		if err != nil || n < 1 {
			return envelope.Errorf(envelope.InvalidInput, "pull request number %q is not a positive integer", number).With("number", number)
		}
		req.(*github.PRDiffRequest).Number = n
		return nil
	})

	cmd.AddCommand(auth, issueList, issueCreate, prList, prCreate, prDiff)
	return cmd
}
