import { redirect } from "next/navigation";

/** `/` → the run list (the only section so far). */
export default function Home(): never {
  redirect("/runs");
}
