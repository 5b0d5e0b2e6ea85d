"use client";

import ReactMarkdown from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";

/**
 * An agent-written plan body (markdown, untrusted) rendered safely: raw HTML in the markdown is
 * not parsed (react-markdown's default), the tree is sanitised with GitHub's allow-list
 * (rehype-sanitize), and link/image URLs with another protocol than http(s), mailto, irc(s) or
 * xmpp (e.g. javascript:) are dropped (react-markdown's defaultUrlTransform); links
 * open in a new tab without an opener. Code blocks wrap their long lines (as the inbox's command
 * does), so a command is read in full on a phone instead of running past the screen's edge.
 */
export function PlanMarkdown({ markdown }: { markdown: string }) {
  return (
    <div
      data-testid="plan-markdown"
      className="[&_blockquote]:text-muted-foreground text-[13px] leading-5 break-words [&_a]:text-primary [&_a]:underline [&_blockquote]:border-l-2 [&_blockquote]:pl-3 [&_code]:rounded [&_code]:bg-muted [&_code]:px-1 [&_code]:font-mono [&_code]:text-[12px] [&_h1]:mt-3 [&_h1]:text-base [&_h1]:font-semibold [&_h2]:mt-3 [&_h2]:text-sm [&_h2]:font-semibold [&_h3]:mt-2 [&_h3]:font-semibold [&_li]:my-0.5 [&_ol]:my-2 [&_ol]:list-decimal [&_ol]:pl-5 [&_p]:my-2 [&_pre]:my-2 [&_pre]:overflow-x-auto [&_pre]:rounded-md [&_pre]:bg-muted [&_pre]:p-2 [&_pre]:wrap-anywhere [&_pre]:whitespace-pre-wrap [&_pre_code]:bg-transparent [&_pre_code]:p-0 [&_table]:my-2 [&_table]:border-collapse [&_td]:border [&_td]:px-2 [&_th]:border [&_th]:px-2 [&_th]:text-left [&_ul]:my-2 [&_ul]:list-disc [&_ul]:pl-5 [&>*:first-child]:mt-0"
    >
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        rehypePlugins={[rehypeSanitize]}
        components={{
          a: ({ node: _node, ...props }) => (
            <a {...props} target="_blank" rel="noopener noreferrer nofollow" />
          ),
        }}
      >
        {markdown}
      </ReactMarkdown>
    </div>
  );
}
