/** One webhook post: Slack mrkdwn `text`; inbox and plan posts add the entry's `kind` and absolute `link`. */
export interface WebhookBody {
  text: string;
  kind?: string;
  link?: string;
}

/**
 * POSTs `body` as JSON to the Slack-compatible incoming-webhook `url` with a 5 s timeout.
 * @throws when the receiver cannot be reached, times out or answers non-2xx.
 */
export async function postWebhook(url: string, body: WebhookBody): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  if (!res.ok) throw new Error(`webhook answered HTTP ${res.status}`);
}
