import type { ReactNode } from "react";

import { Card, CardContent } from "@/components/ui/card";

/** The narrow centred card of the sign-in and setup pages. */
export function AuthCard({
  title,
  description,
  children,
}: {
  title: string;
  description: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="flex justify-center pt-[10vh]">
      <Card className="w-full max-w-sm">
        <CardContent className="space-y-4 p-6">
          <div className="space-y-1">
            <h1 className="text-lg font-semibold tracking-tight">{title}</h1>
            <p className="text-sm text-muted-fg">{description}</p>
          </div>
          {children}
        </CardContent>
      </Card>
    </div>
  );
}
