import { PlanItemList } from "@/components/plans/plan-item-list";
import {
  PlanItemsEditor,
  toEditable,
  type EditableItem,
} from "@/components/plans/plan-items-editor";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { PlanItemView } from "@/lib/view-models/plans";

/**
 * The plan's items: as proposed, or in the editor while a person approves with edits (`editing`
 * is the list being edited, null when not editing; `onEditing` replaces it).
 */
export function PlanItemsCard({
  items,
  pending,
  editing,
  onEditing,
}: {
  items: PlanItemView[];
  pending: boolean;
  editing: EditableItem[] | null;
  onEditing: (items: EditableItem[]) => void;
}) {
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>
          {editing ? "Items (editing)" : pending ? "Proposed items" : "Items as proposed"}
        </CardTitle>
        <CardDescription className="tabular-nums">
          {editing
            ? "edit, reorder, add or remove; the agent receives the list as you leave it"
            : `${items.length} step${items.length === 1 ? "" : "s"} in order`}
        </CardDescription>
        {editing && (
          <Button
            variant="ghost"
            size="sm"
            className="ml-auto"
            onClick={() => onEditing(toEditable(items))}
          >
            Reset to proposal
          </Button>
        )}
      </CardHeader>
      {editing ? (
        <CardContent>
          <PlanItemsEditor items={editing} onChange={onEditing} />
        </CardContent>
      ) : (
        <PlanItemList items={items} label="Proposed items" />
      )}
    </Card>
  );
}
