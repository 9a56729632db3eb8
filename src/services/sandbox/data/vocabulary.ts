/** Word lists for generated ATS data. Names and cities come from faker's English locale. */
import type { EmploymentType } from "../../../contracts/upstream/index.js";

export const JOB_TITLES: readonly { name: string; department: string; category: string; level: string }[] = [
  { name: "Senior Backend Engineer", department: "Engineering", category: "Software Development", level: "Senior" },
  { name: "Frontend Engineer", department: "Engineering", category: "Software Development", level: "Mid" },
  { name: "Staff Platform Engineer", department: "Engineering", category: "Software Development", level: "Staff" },
  { name: "Data Engineer", department: "Data", category: "Data & Analytics", level: "Mid" },
  { name: "Machine Learning Engineer", department: "Data", category: "Data & Analytics", level: "Senior" },
  { name: "Product Manager", department: "Product", category: "Product Management", level: "Senior" },
  { name: "Product Designer", department: "Design", category: "Design", level: "Mid" },
  { name: "Customer Success Manager", department: "Customer Success", category: "Customer Service", level: "Mid" },
  { name: "Account Executive", department: "Sales", category: "Sales", level: "Mid" },
  { name: "Sales Development Representative", department: "Sales", category: "Sales", level: "Junior" },
  { name: "Marketing Manager", department: "Marketing", category: "Marketing", level: "Senior" },
  { name: "Content Strategist", department: "Marketing", category: "Marketing", level: "Mid" },
  { name: "Financial Analyst", department: "Finance", category: "Finance", level: "Mid" },
  { name: "People Partner", department: "People", category: "Human Resources", level: "Senior" },
  { name: "Talent Acquisition Specialist", department: "People", category: "Human Resources", level: "Mid" },
  { name: "Warehouse Associate", department: "Operations", category: "Logistics", level: "Entry" },
  { name: "Operations Coordinator", department: "Operations", category: "Operations", level: "Junior" },
  { name: "Support Engineer", department: "Customer Success", category: "Customer Service", level: "Mid" },
  { name: "Security Engineer", department: "Engineering", category: "Software Development", level: "Senior" },
  { name: "QA Engineer", department: "Engineering", category: "Software Development", level: "Mid" },
];

/**
 * Every pipeline holds an "AI Interview" stage (the stage the sync engine's candidate_stage usually
 * names) and the outcome stages an interview result moves an application to.
 */
export const PIPELINES: readonly (readonly string[])[] = [
  ["Application Review", "AI Interview", "Hiring Manager Review", "Technical Interview", "Offer", "Hired", "Rejected"],
  ["New", "Phone Screen", "AI Interview", "Onsite Interview", "Offer", "Hired", "Rejected"],
  ["Applied", "AI Interview", "Interview Passed", "Needs Review", "Final Interview", "Offer", "Hired", "Rejected"],
];
/** Relative share of open applications per stage position (early stages fuller). */
export const STAGE_WEIGHTS = [30, 26, 14, 10, 6, 4, 6, 4];

export const TERMINAL_STAGES = { hired: "Hired", rejected: "Rejected", offer: "Offer" } as const;
export const INTERVIEW_STAGE = /interview|screen/i;

export const EMPLOYMENT_TYPES: readonly EmploymentType[] = ["FULL_TIME", "FULL_TIME", "FULL_TIME", "PART_TIME", "CONTRACT", "INTERNSHIP"];

export const COUNTRIES: readonly { country: string; currency: string }[] = [
  { country: "DE", currency: "EUR" },
  { country: "GB", currency: "GBP" },
  { country: "US", currency: "USD" },
  { country: "FR", currency: "EUR" },
  { country: "NL", currency: "EUR" },
];

export const SOURCES = ["LinkedIn", "Company Website", "Referral", "Indeed", "Agency", "StepStone", "Career Fair"];

export const TAG_NAMES = [
  "Top Talent",
  "Relocation",
  "Visa Required",
  "Silver Medalist",
  "Remote Only",
  "Internal",
  "Re-apply",
  "Fast Track",
  "Bilingual",
  "Former Employee",
];

export const REJECTION_REASONS = [
  "Insufficient experience",
  "Salary expectations too high",
  "Position filled",
  "Withdrew application",
  "Failed assessment",
  "Culture add not evident",
  "Location mismatch",
  "No response from candidate",
];

export const COMPANIES = [
  "Acme GmbH",
  "Globex",
  "Initech",
  "Umbrella Logistics",
  "Stark Industries",
  "Wayne Enterprises",
  "Hooli",
  "Vandelay Industries",
  "Soylent Corp",
  "Tyrell Systems",
];
